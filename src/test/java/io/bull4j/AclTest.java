package io.bull4j;

import io.bull4j.support.AclUser;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * bull4j under the least-privilege user documented in docs/operations.md (read from there by {@link AclUser}): a
 * queue, a worker and QueueEvents work with nothing refused (Redis's ACL LOG stays empty), while a queue outside the
 * user's prefix is refused with nothing written, and a user that may not run INFO cannot connect, with a clear error.
 * The whole suite runs as this user with {@code BULL4J_TEST_ACL=1}; this test runs the core path in every build.
 */
class AclTest {
    @Test
    void theDocumentedUserRunsQueuesWorkersAndEventsWithNothingRefused() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            AclUser.create(server.sync());
            server.sync().aclLogReset();
            String q = TestSupport.queueName("acl");
            CompletableFuture<Object> processed = new CompletableFuture<>();
            CompletableFuture<QueueEvent> completed = new CompletableFuture<>();
            try (Bull4jConnection redis = Bull4jConnection.create(AclUser.withCredentials(server.uri()));
                 QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(redis).build());
                 Queue queue = new Queue(q, QueueOptions.builder().connection(redis).build());
                 Worker worker = new Worker(q, job -> {
                     processed.complete(job.data());
                     return "ok";
                 }, WorkerOptions.builder().connection(redis).drainDelay(Duration.ofSeconds(1)).build())) {
                events.on(QueueEvent.Type.COMPLETED, completed::complete);
                String id = queue.add("j", Map.of("n", 1)).id();
                assertEquals(Map.of("n", 1), processed.get(30, TimeUnit.SECONDS));
                assertEquals(id, completed.get(30, TimeUnit.SECONDS).jobId());
                assertEquals(1L, queue.getJobCounts(JobState.COMPLETED).get(JobState.COMPLETED));
                assertTrue(server.sync().clientList().lines().filter(l -> l.contains(" user=" + AclUser.NAME + " "))
                        .count() >= 2, "the shared and the worker's blocking connection log in as the user");

                // a queue under another prefix is outside ~bull:*
                try (Queue other = new Queue(q, QueueOptions.builder().connection(redis).prefix("other")
                        .checkEvictionPolicy(false).build())) {
                    RedisException e = assertThrows(RedisException.class, () -> other.add("j", Map.of()));
                    assertTrue(e.getMessage().contains("NOPERM"), e.getMessage());
                } catch (RedisException refusedAtConstruction) {
                    assertTrue(refusedAtConstruction.getMessage().contains("NOPERM"),
                            refusedAtConstruction.getMessage());
                }
                assertEquals(List.of(), server.sync().keys("other:*"), "nothing written outside the prefix");
            }
            // Lettuce's CLIENT SETINFO at connect (best effort, ignored when refused): Redis 6.2 refuses a subcommand
            // it does not know as an ACL denial, Redis 7.0 as an unknown subcommand
            boolean redis62 = server.sync().info("server").contains("redis_version:6.");
            List<Map<String, Object>> denials = server.sync().aclLog();
            assertTrue(denials.stream().allMatch(d -> String.valueOf(d.get("object")).startsWith("other:")
                            || redis62 && "client".equals(d.get("object"))),
                    "only the other prefix was refused: " + denials);
        }
    }

    @Test
    void aUserThatMayNotRunInfoCannotConnectAndIsToldWhy() {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            AclUser.create(server.sync());
            server.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add(AclUser.NAME).add("-info"));
            RedisException e = assertThrows(RedisException.class,
                    () -> Bull4jConnection.create(AclUser.withCredentials(server.uri())).close());
            assertTrue(e.getMessage().contains("INFO") && e.getMessage().contains("NOPERM"), e.getMessage());
        }
    }
}
