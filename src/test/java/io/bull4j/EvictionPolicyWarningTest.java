package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A Redis whose maxmemory-policy is not noeviction gets one WARN naming the policy, per server, however many
 * connections, queues and workers use it; none when the application opts out; and a server that refuses the
 * lookup is left unchecked without a word. Each case runs on a redis-server of its own, whose policy it sets. The
 * log (slf4j-simple writes to System.err) is captured.
 */
class EvictionPolicyWarningTest {
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void capture() {
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(originalErr);
    }

    @Test
    void oneWarningPerServerNamingThePolicy() {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            server.sync().configSet("maxmemory-policy", "allkeys-lru");
            for (int c = 0; c < 2; c++) {
                try (Bull4jConnection redis = Bull4jConnection.create(server.bull4jUri());
                     Queue a = new Queue("a", QueueOptions.builder().connection(redis).build());
                     Queue b = new Queue("b", QueueOptions.builder().connection(redis).build());
                     Worker w = new Worker("a", job -> null,
                             WorkerOptions.builder().connection(redis).autorun(false).build())) {
                    assertEquals("a", a.name());
                }
            }
        }
        List<String> warnings = warnings();
        assertEquals(1, warnings.size(), "one warning for two connections, four queues, two workers: " + warnings);
        assertTrue(warnings.get(0).contains("WARN") && warnings.get(0).contains("allkeys-lru"), warnings.get(0));
    }

    @Test
    void noWarningWhenTheApplicationOptsOutOrThePolicyIsNoeviction() {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection redis = Bull4jConnection.create(server.bull4jUri())) {
            new Queue("noeviction", QueueOptions.builder().connection(redis).build()).close();
            assertEquals(List.of(), warnings(), "noeviction is what bull4j needs");
        }
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            server.sync().configSet("maxmemory-policy", "volatile-lru");
            try (Bull4jConnection redis = Bull4jConnection.create(server.bull4jUri())) {
                new Queue("q", QueueOptions.builder().connection(redis).checkEvictionPolicy(false).build()).close();
                new Worker("q", job -> null, WorkerOptions.builder().connection(redis).autorun(false)
                        .checkEvictionPolicy(false).build()).close();
                assertEquals(List.of(), warnings(), "opted out");

                new Queue("q", QueueOptions.builder().connection(redis).build()).close();
                assertEquals(1, warnings().size(), "the same server, checked: " + warnings());
            }
        }
    }

    @Test
    void aServerThatRefusesConfigIsStillCheckedAndOneThatRefusesInfoMemoryIsLeftQuietly() {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            assumeTrue(server.sync().info("server").contains("redis_version:7"),
                    "first-argument ACL rules (+info|server) need Redis 7");
            server.sync().configSet("maxmemory-policy", "allkeys-random");
            // like a managed Redis: no CONFIG
            server.sync().aclSetuser("managed", AclSetuserArgs.Builder.on().addPassword("pw")
                    .allKeys().allChannels().allCommands().removeCommand(CommandType.CONFIG));
            try (Bull4jConnection redis = Bull4jConnection.create(withUser(server, "managed"))) {
                new Queue("q", QueueOptions.builder().connection(redis).build()).close();
            }
            assertEquals(1, warnings().size(), "checked without CONFIG: " + warnings());
            assertTrue(warnings().get(0).contains("allkeys-random"));
        }
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            server.sync().configSet("maxmemory-policy", "allkeys-random");
            // INFO server allowed (bull4j needs the version), INFO memory refused
            server.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8)
                            .add("SETUSER").add("locked").add("on").add(">pw").add("~*").add("&*").add("+@all")
                            .add("-info").add("+info|server").add("-config"));
            captured.reset();
            try (Bull4jConnection redis = Bull4jConnection.create(withUser(server, "locked"));
                 Queue queue = new Queue("q", QueueOptions.builder().connection(redis).build())) {
                assertNotNull(queue.add("j", Map.of()).id(), "the queue works unchecked");
            }
            String log = captured.toString(StandardCharsets.UTF_8);
            assertEquals("", log.trim(), "nothing logged when the lookup is refused");
        }
    }

    private static String withUser(RedisTestServer server, String user) {
        return "redis://" + user + ":pw@" + server.host() + ":" + server.port();
    }

    private List<String> warnings() {
        System.err.flush();
        return Arrays.stream(captured.toString(StandardCharsets.UTF_8).split("\n"))
                .filter(l -> l.contains("maxmemory-policy")).toList();
    }
}
