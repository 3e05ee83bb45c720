package io.bull4j.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Proves the test harness itself: real Redis servers and the real Node bullmq driver. */
class HarnessSelfTest {

    private static final Duration NODE_TIMEOUT = Duration.ofSeconds(60);

    @Test
    void sharedServerAnswersPing() {
        RedisTestServer redis = RedisTestServer.get();
        assertEquals("PONG", redis.sync().ping());
        assertTrue(redis.isRunning());
        assertTrue(redis.uri().startsWith("redis://"), redis.uri());
        if (System.getenv(RedisTestServer.URL_VARIABLE) == null) {
            assertNotEquals(6379, redis.port(), "tests must not use the shared default Redis port");
        }
        assertTrue(RedisTestServer.get() == redis, "one server per JVM");
    }

    @Test
    void uniqueQueueNamesHaveNoColons() {
        String a = RedisTestServer.uniqueQueueName("a:b");
        assertFalse(a.contains(":"), a);
        assertTrue(a.startsWith("a-b-"), a);
        assertNotEquals(a, RedisTestServer.uniqueQueueName("a:b"));
    }

    @Test
    void dedicatedServerWorksStopsAndRestarts() {
        try (RedisTestServer dedicated = RedisTestServer.startDedicated()) {
            assertNotEquals(RedisTestServer.get().port(), dedicated.port());
            dedicated.sync().set("k", "v");
            assertEquals("v", dedicated.sync().get("k"));

            dedicated.kill();
            assertFalse(dedicated.isRunning(), "killed server still answers");

            dedicated.restart();
            assertEquals("PONG", dedicated.sync().ping());
            assertNull(dedicated.sync().get("k"), "no persistence across restarts");

            dedicated.stop();
            assertFalse(dedicated.isRunning(), "stopped server still answers");
        }
    }

    @Test
    void aServerLeftByAKilledJvmIsStoppedByTheNextHarness() throws Exception {
        assumeTrue(System.getenv(RedisTestServer.URL_VARIABLE) == null, "the harness starts its own servers");
        int port;
        try (ChildJvm child = ChildJvm.start(OrphanServerMain.class)) {
            port = Integer.parseInt(child.awaitLine(l -> l.startsWith("PORT "), 60).substring(5));
            child.kill(); // SIGKILL: no shutdown hook stops its server
        }
        assertTrue(RedisTestServer.ping("127.0.0.1", port), "the killed JVM's server should outlive it until reaped");

        OrphanReaper.reap("bull4j-redis-");

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (RedisTestServer.ping("127.0.0.1", port) && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos()); // bounded poll
        }
        assertFalse(RedisTestServer.ping("127.0.0.1", port), "the orphaned server on port " + port + " still answers");
    }

    @Test
    void nodeBullmqAddsCountsProcessesAndReadsBack() {
        NodeBullmq.assumeAvailable();
        RedisTestServer redis = RedisTestServer.get();
        RedisCommands<String, String> r = redis.sync();
        String queue = RedisTestServer.uniqueQueueName("selftest");

        JsonNode added = NodeBullmq.runOne(NODE_TIMEOUT, "add", redis.uri(), queue, "greet", "{\"who\":\"world\"}");
        String id = added.get("id").asText();
        assertEquals("greet", added.get("name").asText());
        assertEquals("world", added.at("/data/who").asText());

        JsonNode counts = NodeBullmq.runOne(NODE_TIMEOUT, "counts", redis.uri(), queue);
        assertEquals(1, counts.get("waiting").asInt(), counts.toString());
        assertEquals(List.of(id), r.lrange("bull:" + queue + ":wait", 0, -1));
        assertEquals("greet", r.hget("bull:" + queue + ":" + id, "name"));

        List<JsonNode> processed = NodeBullmq.run(NODE_TIMEOUT, "process", redis.uri(), queue, "1", "{\"ok\":true}");
        assertEquals(1, processed.size(), processed.toString());
        assertEquals(id, processed.get(0).get("id").asText());
        assertTrue(processed.get(0).at("/returnvalue/ok").asBoolean());

        JsonNode job = NodeBullmq.runOne(NODE_TIMEOUT, "getJob", redis.uri(), queue, id);
        assertEquals("completed", job.get("state").asText(), job.toString());
        assertTrue(job.at("/returnvalue/ok").asBoolean(), job.toString());
        assertEquals("{\"ok\":true}", r.hget("bull:" + queue + ":" + id, "returnvalue"));
        assertNotNull(r.zscore("bull:" + queue + ":completed", id));

        JsonNode missing = NodeBullmq.runOne(NODE_TIMEOUT, "getJob", redis.uri(), queue, "no-such-id");
        assertTrue(missing.path("missing").asBoolean(), missing.toString());
    }

    @Test
    void nodeBullmqFailRecordsTheReason() {
        NodeBullmq.assumeAvailable();
        RedisTestServer redis = RedisTestServer.get();
        String queue = RedisTestServer.uniqueQueueName("selftest-fail");
        String id = NodeBullmq.runOne(NODE_TIMEOUT, "add", redis.uri(), queue, "bad", "{}").get("id").asText();

        List<JsonNode> failed = NodeBullmq.run(NODE_TIMEOUT, "fail", redis.uri(), queue, "1", "boom");
        assertEquals(1, failed.size(), failed.toString());
        assertEquals("boom", failed.get(0).get("failedReason").asText());
        assertEquals("boom", redis.sync().hget("bull:" + queue + ":" + id, "failedReason"));
        assertNotNull(redis.sync().zscore("bull:" + queue + ":failed", id));
    }

    @Test
    void longRunningNodeWorkerCanBeKilledMidJob() {
        NodeBullmq.assumeAvailable();
        RedisTestServer redis = RedisTestServer.get();
        String queue = RedisTestServer.uniqueQueueName("selftest-hang");
        String id = NodeBullmq.runOne(NODE_TIMEOUT, "add", redis.uri(), queue, "slow", "{}").get("id").asText();

        try (NodeProcess worker = NodeBullmq.start("hang", redis.uri(), queue)) {
            assertEquals(id, worker.awaitLine(NODE_TIMEOUT).get("started").asText());
            worker.kill();
            assertFalse(worker.isAlive());
        }
        // the job stays active with the dead worker's lock: exactly what stalled-job tests start from
        assertEquals(List.of(id), redis.sync().lrange("bull:" + queue + ":active", 0, -1));
    }
}
