package io.bull4j;

import io.bull4j.internal.script.MoveStalledJobsToWait;
import io.bull4j.internal.script.MoveToActive;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Stalled jobs. A dead worker is simulated by taking a job with the fetch transition directly and deleting its
 * lock: the job sits in active with nobody renewing it.
 */
class WorkerStalledTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String STALLED_REASON = "job stalled more than allowable limit";

    /** Takes the next job as a worker that then dies: active, lock gone. */
    private static String takeAndDie(Queue queue) {
        QueueContext ctx = queue.context();
        String id = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "dead:1", 30_000, null),
                "moveToActive").id();
        redis().del(ctx.keys.lock(id));
        return id;
    }

    @Test
    void stalledJobIsMovedBackToWaitAndRunAgain() throws Exception {
        String q = queueName("stalled");
        Recorder rec = new Recorder();
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("j", Map.of());
            String id = takeAndDie(queue);
            Worker worker = new Worker(q, j -> runs.incrementAndGet(),
                    workerOptions().stalledInterval(Duration.ofMillis(500)).autorun(false).build());
            worker.addListener(rec);
            worker.run();
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), id) != null, "recovered and completed");
                eventually(WAIT, () -> rec.count("stalled") == 1, "onStalled fired");
            } finally {
                worker.close();
            }
            assertEquals(1, runs.get());
            Map<String, String> h = hash(q, id);
            assertEquals("1", h.get("stc"));
            assertEquals("2", h.get("ats"));
            assertEquals("1", h.get("atm"));
            assertEquals(List.of("added", "waiting", "active", "waiting", "stalled", "active", "completed"),
                    eventNames(q, id));
            assertEquals("active", events(q, "waiting", id).get(1).get("prev"));
            assertTrue(rec.calls.stream().anyMatch(c -> c.startsWith("stalled:" + id + "@bull4j-events-")));
        }
    }

    /**
     * As in BullMQ, a starting worker checks for stalled jobs before it takes its first job: a job recovered from a
     * dead worker runs before the waiting ones, and the job it takes is not a stalled candidate while it runs.
     * Several rounds, because before the fix the check and the first fetch raced.
     */
    @Test
    void theFirstStalledCheckRunsBeforeTheFirstFetch() throws Exception {
        for (int round = 1; round <= 5; round++) {
            String q = queueName("stalledfirst");
            List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (Queue queue = new Queue(q, queueOptions())) {
                queue.add("dead", Map.of());
                String dead = takeAndDie(queue);
                redis().sadd(key(q, "stalled"), dead); // a previous check marked it; its worker died since
                String fresh = queue.add("fresh", Map.of()).id();
                java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
                Worker worker = new Worker(q, j -> {
                    order.add(j.id());
                    if (j.id().equals(fresh)) {
                        release.await();
                    }
                    return null;
                }, workerOptions().stalledInterval(Duration.ofSeconds(30)).build());
                try {
                    eventually(WAIT, () -> !order.isEmpty(), "a job started");
                    assertEquals(dead, order.get(0), "round " + round + ": the recovered job runs first");
                    eventually(WAIT, () -> order.size() == 2, "both jobs started");
                    assertEquals(java.util.Set.of(), redis().smembers(key(q, "stalled")),
                            "round " + round + ": the running job is no stalled candidate");
                } finally {
                    release.countDown();
                    worker.close();
                }
            }
        }
    }

    @Test
    void jobPastMaxStalledCountIsFailedByTheNextFetchWithoutRunning() throws Exception {
        String q = queueName("stalledmax");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("j", Map.of(), JobOptions.builder().attempts(3).build());
            String id = takeAndDie(queue);
            Worker worker = new Worker(q, j -> runs.incrementAndGet(), workerOptions()
                    .stalledInterval(Duration.ofMillis(500)).maxStalledCount(0).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), id) != null, "failed");
            } finally {
                worker.close();
            }
            assertEquals(0, runs.get(), "the processor never ran");
            Map<String, String> h = hash(q, id);
            assertEquals(STALLED_REASON, h.get("failedReason"));
            assertEquals("1", h.get("stc"));
            assertEquals("2", h.get("ats"));
            assertEquals("1", h.get("atm"));
            assertNull(h.get("defa"), "the deferred failure is cleared once failed");
            List<Map<String, String>> failed = events(q, "failed", id);
            assertEquals(1, failed.size());
            assertEquals(STALLED_REASON, failed.get(0).get("failedReason"));
            assertEquals(1, events(q, "stalled", id).size());
        }
    }

    @Test
    void secondStallPastTheDefaultLimitFails() throws Exception {
        String q = queueName("stalled2");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("j", Map.of());
            String id = takeAndDie(queue);
            redis().hset(key(q, id), "stc", "1"); // it stalled once before
            Worker worker = new Worker(q, j -> runs.incrementAndGet(),
                    workerOptions().stalledInterval(Duration.ofMillis(500)).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), id) != null, "failed");
            } finally {
                worker.close();
            }
            assertEquals(0, runs.get());
            assertEquals("2", hash(q, id).get("stc"));
            assertEquals(STALLED_REASON, hash(q, id).get("failedReason"));
        }
    }

    @Test
    void stalledCheckKeyThrottlesAllWorkers() throws Exception {
        String q = queueName("throttle");
        try (Queue queue = new Queue(q, queueOptions())) {
            Worker worker = new Worker(q, j -> null, workerOptions().stalledInterval(Duration.ofSeconds(10)).build());
            try {
                eventually(WAIT, () -> redis().exists(key(q, "stalled-check")) == 1, "first check ran");
                long pttl = redis().pttl(key(q, "stalled-check"));
                assertTrue(pttl > 5_000 && pttl <= 10_000, "PTTL " + pttl);
                long stamp = Long.parseLong(redis().get(key(q, "stalled-check")));
                assertTrue(Math.abs(System.currentTimeMillis() - stamp) < 10_000, "holds the check time");
            } finally {
                worker.close();
            }

            queue.add("j", Map.of());
            String id = takeAndDie(queue);
            QueueContext ctx = queue.context();
            assertEquals(List.of(), check(ctx), "throttled while the key lives");
            assertFalse(redis().sismember(key(q, "stalled"), id), "a throttled check does nothing");

            redis().del(key(q, "stalled-check"));
            assertEquals(List.of(), check(ctx), "first pass only records the active jobs");
            assertTrue(redis().sismember(key(q, "stalled"), id));
            redis().del(key(q, "stalled-check"));
            assertEquals(List.of(id), check(ctx));
            assertEquals(List.of(id), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0, redis().llen(key(q, "active")));
            assertEquals("1", hash(q, id).get("stc"));
        }
    }

    private static List<String> check(QueueContext ctx) {
        return ctx.await(MoveStalledJobsToWait.run(ctx.scripts(), ctx.keys, ctx.now(), 1, 10_000), "stalled");
    }
}
