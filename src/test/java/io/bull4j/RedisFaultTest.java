package io.bull4j;

import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 9, defects 1, 2 and 6: an add that failed is never applied later, every call (sync and async) ends within
 * its bound while Redis is down or frozen, and after a long outage calls work soon after Redis is back.
 */
class RedisFaultTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** The bound a caller may rely on, with room for a loaded machine. */
    private static final long BOUND_MS = TIMEOUT.toMillis() + 3_000;
    /** A bulk of 500's bound: the command timeout per 200 jobs, and one more, plus the same margin. */
    private static final long BULK_BOUND_MS = TIMEOUT.toMillis() * 3 + 3_000;

    @Test
    void aWriteARedisReplicaRefusesIsNotApplied() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("readonly");
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                Job before = queue.add("before", Map.of());
                // as after a failover that left this client on a replica (its master unreachable: no sync, no flush)
                server.sync().replicaof("127.0.0.1", 1);
                try {
                    RedisException refused = assertThrows(RedisException.class, () -> queue.add("refused", Map.of()));
                    assertInstanceOf(RedisNotAppliedException.class, refused, "READONLY: refused before it ran");
                    assertTrue(refused.getMessage().contains("READONLY"), refused.getMessage());
                } finally {
                    server.sync().replicaofNoOne();
                }
                // the READONLY reply made the connection reconnect: adds are refused, unapplied, until it is back
                Job after = null;
                long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (after == null) {
                    try {
                        after = queue.add("after", Map.of());
                    } catch (RedisNotAppliedException e) {
                        if (System.nanoTime() > until) {
                            throw e;
                        }
                        java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
                    }
                }
                assertEquals(Long.parseLong(before.id()) + 1, Long.parseLong(after.id()), "the refused add took no id");
                assertEquals(2, queue.getJobCounts(JobState.WAITING).get(JobState.WAITING));
            }
        }
    }

    @Test
    void addsRefusedWhileRedisIsDownAreNeverAppliedAfterItReturns() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("down");
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                queue.add("before", Map.of());
                server.stop();
                // an add racing the stop may be written to the dying socket (outcome unknown); once the client has
                // seen the disconnect, adds are refused at once as not applied
                eventually(Duration.ofSeconds(10), () -> {
                    try {
                        queue.add("racing", Map.of());
                        return false;
                    } catch (RedisNotAppliedException seen) {
                        return true;
                    } catch (RedisOutcomeUnknownException racing) {
                        return false;
                    }
                }, "the client sees the disconnect");

                long start = System.nanoTime();
                RedisException single = assertThrows(RedisException.class, () -> queue.add("lost", Map.of()));
                assertWithinBound(start, "add");
                assertInstanceOf(RedisNotAppliedException.class, single, "nothing was sent");

                CompletableFuture<Job> async = queue.addAsync("lost-async", Map.of());
                assertFailsWithin(async, "addAsync");

                assertThrows(RedisException.class, () -> queue.addBulk(bulk(500)));

                server.restart(); // empty: persistence is off, so whatever Redis holds now came after the restart
                Job after = addOnceBack(queue);
                assertEquals("1", after.id(), "the first job of the fresh dataset: no failed add took an id");
                assertEquals(1L, jobsInRedis(server, q), "only the add that succeeded is in Redis");
            }
        }
    }

    @Test
    void addsThatTimedOutOnAFrozenRedisAreNeverAppliedWhenItWakes() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("frozen");
            String pid = pidOf(server);
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                queue.add("before", Map.of());
                signal("STOP", pid);
                try {
                    long start = System.nanoTime();
                    RedisException single = assertThrows(RedisException.class, () -> queue.add("late", Map.of()));
                    assertWithinBound(start, "add");
                    assertInstanceOf(RedisOutcomeUnknownException.class, single, "sent, no answer");
                    assertTrue(single.isTimeout());

                    assertFailsWithin(queue.addAsync("late-async", Map.of()), "addAsync");
                    assertThrows(RedisException.class, () -> queue.addBulk(bulk(500)));
                } finally {
                    signal("CONT", pid);
                }
                // the frozen commands sit before this one on the same connection, so Redis has run them by now
                Job after = addOnceBack(queue);
                assertEquals(2L, jobsInRedis(server, q), "only the two adds that succeeded are in Redis, not "
                        + "the 502 that were reported as failed");
                assertEquals("2", after.id());
                assertEquals(2L, server.sync().llen("bull:" + q + ":wait"));
            }
        }
    }

    @Test
    void aCallSucceedsSoonAfterALongOutageEnds() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("outage");
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                queue.add("before", Map.of());
                server.kill();
                // a 17 s outage, used as a caller would: calls keep failing, each within its bound. Lettuce's own
                // backoff (1, 2, 4, ... ms) tries at about 16.4 s and next at 32.8 s: with it, the first call
                // would succeed some 15 s after Redis is back
                long outageEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(17);
                int failures = 0;
                while (System.nanoTime() < outageEnd) {
                    long start = System.nanoTime();
                    assertThrows(RedisException.class, queue::getJobCounts);
                    assertWithinBound(start, "getJobCounts");
                    failures++;
                    // pace the calls on a future that never completes, instead of spinning
                    assertThrows(java.util.concurrent.TimeoutException.class,
                            () -> new CompletableFuture<Void>().get(200, TimeUnit.MILLISECONDS));
                }
                assertTrue(failures > 0);
                server.restart();
                long back = System.nanoTime();
                addOnceBack(queue);
                long ms = (System.nanoTime() - back) / 1_000_000;
                // the reconnect backoff is capped at 1 s by default
                assertTrue(ms < 5_000, "first successful call " + ms + " ms after Redis was back");
            }
        }
    }

    @Test
    void reconnectDelayIsValidated() {
        ValidationException e = assertThrows(ValidationException.class, () -> ConnectionOptions.builder()
                .reconnectDelay(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertEquals("reconnectDelayMax", e.field());
        e = assertThrows(ValidationException.class, () -> ConnectionOptions.builder()
                .reconnectDelay(Duration.ZERO, Duration.ofSeconds(1)));
        assertEquals("reconnectDelayMin", e.field());
        // bounds apart by less than a millisecond are one constant wait (Lettuce's backoff counts whole ms)
        try (Bull4jConnection conn = Bull4jConnection.create(RedisTestServer.get().bull4jUri(), ConnectionOptions
                .builder().reconnectDelay(Duration.ofMillis(5).plusNanos(10), Duration.ofMillis(5).plusNanos(20))
                .build())) {
            assertNotNull(conn);
        }
    }

    /**
     * A frozen Redis still holds what was written to its socket, and runs it when it wakes, even from a connection
     * that was closed meanwhile. The silent-connection probe drops the connection after a call and a PING got no
     * answer: a bulk sent between the two failed at once, before its deadline, and its first chunk was added when
     * Redis woke (25 jobs reported as failed, in Redis; seen in the ACL suite's run). Such a failure is now reported
     * at the call's bound, when Redis refuses it as late.
     */
    @Test
    void aCallFailedByADroppedConnectionIsNotAppliedAfterItsFailure() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("frozen-drop");
            String pid = pidOf(server);
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                queue.add("before", Map.of());
                signal("STOP", pid);
                try {
                    // times out after TIMEOUT, and the PING that follows it is what drops the connection
                    assertThrows(RedisOutcomeUnknownException.class, () -> queue.add("late", Map.of()));
                    // sent before the drop, with the bulk's longer deadline (3 x TIMEOUT from now)
                    CompletableFuture<List<Job>> bulk = queue.addBulkAsync(bulk(500));
                    ExecutionException failed = assertThrows(ExecutionException.class,
                            () -> bulk.get(BULK_BOUND_MS, TimeUnit.MILLISECONDS));
                    assertInstanceOf(RedisException.class, failed.getCause());
                } finally {
                    signal("CONT", pid);
                }
                addOnceBack(queue);
                assertEquals(2L, jobsInRedis(server, q), "only the two adds that succeeded are in Redis");
            }
        }
    }

    /**
     * A caller interrupted while it waits for Redis's answer learns that the command may still be applied (it was
     * sent): an add so interrupted must not look "not applied", or a retry would add the job twice. Redis holds the
     * add (CLIENT PAUSE) so that its answer cannot be there before the wait starts: an answer already there is
     * returned, as the outcome is then known (a cold first add here once got its answer before its wait began).
     */
    @Test
    void anInterruptedCallIsAnUnknownOutcome() throws InterruptedException {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("fault-interrupt");
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                assertEquals("OK", server.sync().clientPause(500));
                Thread.currentThread().interrupt();
                RedisOutcomeUnknownException e = assertThrows(RedisOutcomeUnknownException.class,
                        () -> queue.add("j", Map.of()));
                assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
                assertTrue(e.getMessage().contains("interrupted"), e.getMessage());
                // and it was indeed applied, once Redis went on
                eventually(Duration.ofSeconds(10), () -> jobsInRedis(server, q) == 1, "the interrupted add applied");
            }
        }
    }

    /**
     * A connection cannot be made while Redis is unreachable (bullmq connects in the background instead): the create
     * fails at once, as not applied, and names the cause; the same create succeeds once Redis is there.
     */
    @Test
    void aConnectionCannotBeCreatedWhileRedisIsUnreachable() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String uri = "redis://127.0.0.1:" + port;
        RedisNotAppliedException e = assertThrows(RedisNotAppliedException.class,
                () -> Bull4jConnection.create(uri, TIMEOUT));
        assertTrue(e.getMessage().contains("Redis unreachable"), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(port)), e.getMessage());
    }

    /** Retries an add while it is refused as not applied, which the docs say is safe. */
    private static Job addOnceBack(Queue queue) throws InterruptedException {
        AtomicReference<Job> added = new AtomicReference<>();
        eventually(Duration.ofSeconds(20), () -> {
            try {
                added.set(queue.add("after", Map.of()));
                return true;
            } catch (RedisNotAppliedException notYet) {
                return false;
            }
        }, "an add succeeds once Redis is back");
        return added.get();
    }

    private static long jobsInRedis(RedisTestServer server, String q) {
        return server.sync().keys("bull:" + q + ":*").stream()
                .filter(k -> k.substring(("bull:" + q + ":").length()).matches("\\d+")).count();
    }

    private static void assertWithinBound(long startNanos, String what) {
        long ms = (System.nanoTime() - startNanos) / 1_000_000;
        assertTrue(ms < BOUND_MS, what + " took " + ms + " ms, over its bound");
    }

    private static void assertFailsWithin(CompletableFuture<?> future, String what) throws Exception {
        try {
            future.get(BOUND_MS, TimeUnit.MILLISECONDS);
            fail(what + " succeeded");
        } catch (java.util.concurrent.TimeoutException e) {
            fail(what + " did not complete within " + BOUND_MS + " ms");
        } catch (ExecutionException e) {
            assertInstanceOf(RedisException.class, e.getCause());
        }
    }

    private static List<BulkJob> bulk(int n) {
        List<BulkJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(BulkJob.of("bulk", Map.of("i", i)));
        }
        return jobs;
    }

    private static String pidOf(RedisTestServer server) {
        for (String line : server.sync().info("server").split("\r?\n")) {
            if (line.startsWith("process_id:")) {
                return line.substring("process_id:".length()).trim();
            }
        }
        throw new AssertionError("no process_id in INFO");
    }

    private static void signal(String signal, String pid) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + signal + " " + pid);
    }
}
