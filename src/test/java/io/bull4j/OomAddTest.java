package io.bull4j;

import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.bull4j.TestSupport.queueName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An add that Redis refuses for {@code maxmemory} under {@code noeviction} ("OOM command not allowed") is an error
 * reply: a plain {@link RedisException}, neither "not sent" nor "outcome unknown", with nothing written; the same
 * add succeeds once memory is freed (docs/reliability.md, Failed calls; the chaos suite's maxmemory scenario).
 */
class OomAddTest {
    @Test
    void anAddRefusedForMemoryIsAPlainRedisExceptionAndWritesNothing() {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri())) {
            String q = queueName("oom");
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                queue.add("before", Map.of());
                server.sync().configSet("maxmemory", "1");
                RedisException e = assertThrows(RedisException.class, () -> queue.add("refused", Map.of("n", 1),
                        JobOptions.builder().jobId("oom-1").build()));
                assertEquals(RedisException.class, e.getClass(), "an error reply, not applied: " + e);
                assertTrue(e.getMessage().contains("OOM"), e.getMessage());
                assertFalse(server.sync().exists("bull:" + q + ":oom-1") > 0, "nothing written");

                server.sync().configSet("maxmemory", "0");
                assertEquals("oom-1", queue.add("refused", Map.of("n", 1),
                        JobOptions.builder().jobId("oom-1").build()).id());
            }
        }
    }
}
