package io.bull4j;

import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveToActive;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;


import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Rate limits (worker limiter, global limit, manual limit, RateLimitException), as BullMQ 6.7.0. */
class RateLimitTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * processedOn is the client's clock when the fetch was sent, the limiter expires on Redis's when it ran: two
     * fetches whose sends took different times to reach Redis (a thread switch, a GC pause on a loaded machine)
     * shift their windows by the difference. Well under the 300-1500 ms windows the tests use.
     */
    private static final long CLOCK_SLACK_MS = 50;

    /**
     * Rebuilds the limiter's windows from start times: a window opens at the first start after the previous one
     * closed and lasts {@code durationMs}; returns the starts per window.
     */
    static List<Integer> startsPerWindow(List<Long> starts, long durationMs) {
        List<Long> sorted = new ArrayList<>(starts);
        Collections.sort(sorted);
        List<Integer> counts = new ArrayList<>();
        long windowEnd = 0;
        for (long s : sorted) {
            if (counts.isEmpty() || s >= windowEnd - CLOCK_SLACK_MS) {
                counts.add(0);
                windowEnd = s + durationMs;
            }
            counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
        }
        return counts;
    }

    private static FetchedJob fetch(Queue queue, String token, long max, long durationMs) {
        QueueContext ctx = queue.context();
        return ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), token, 30_000, null, max, durationMs),
                "moveToActive");
    }

    @Test
    void aWorkerLimiterHoldsEveryWindowToItsMax() throws Exception {
        String q = queueName("rl-worker");
        try (Queue queue = new Queue(q, queueOptions())) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ids.add(queue.add("j", Map.of("i", i)).id());
            }
            long t0 = System.currentTimeMillis();
            Worker worker = new Worker(q, job -> null,
                    workerOptions().concurrency(4).limiter(2, Duration.ofMillis(300)).build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 8, "all completed");
            } finally {
                worker.close();
            }
            // fetch times as the admitting fetch wrote them; a processor's own start may lag on a busy machine
            List<Long> fetched = new ArrayList<>();
            for (String id : ids) {
                fetched.add(Long.parseLong(redis().hget(key(q, id), "processedOn")));
            }
            List<Integer> perWindow = startsPerWindow(fetched, 300);
            assertTrue(perWindow.stream().allMatch(n -> n <= 2), "at most 2 per window: " + perWindow);
            assertTrue(System.currentTimeMillis() - t0 >= 3 * 300 - CLOCK_SLACK_MS, "8 jobs at 2 per 300 ms");
            assertTrue(redis().zcard(key(q, "delayed")) == 0 && events(q, "delayed", null).isEmpty(),
                    "rate-limited jobs never go to delayed");
        }
    }

    @Test
    void theGlobalMaxWinsAndTheWorkerDurationWins() {
        String q = queueName("rl-precedence");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 3; i++) {
                queue.add("j", Map.of());
            }
            queue.setGlobalRateLimit(1, Duration.ofSeconds(100));
            assertEquals(new RateLimit(1, Duration.ofSeconds(100)), queue.getGlobalRateLimit());
            assertTrue(fetch(queue, "t:1", 5, 10_000).isPresent());
            long pttl = redis().pttl(key(q, "limiter"));
            assertTrue(pttl > 9_000 && pttl <= 10_000, "the worker's duration, not the meta's: " + pttl);
            FetchedJob limited = fetch(queue, "t:2", 5, 10_000);
            assertFalse(limited.isPresent(), "the meta max (1) wins over the worker's (5)");
            assertTrue(limited.rateLimitMs() > 9_000 && limited.rateLimitMs() <= 10_000);
            // without a worker limiter the meta's duration applies
            redis().del(key(q, "limiter"));
            assertTrue(fetch(queue, "t:3", 0, 0).isPresent());
            assertTrue(redis().pttl(key(q, "limiter")) > 90_000);
            queue.removeGlobalRateLimit();
            assertNull(queue.getGlobalRateLimit());
            assertTrue(fetch(queue, "t:4", 0, 0).isPresent(), "no limit at all now");
        }
    }

    @Test
    void aGlobalLimitHoldsWorkersWithoutALimiter() throws Exception {
        String q = queueName("rl-global");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.setGlobalRateLimit(1, Duration.ofMillis(250));
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                ids.add(queue.add("j", Map.of()).id());
            }
            Worker a = new Worker(q, job -> null, workerOptions().concurrency(3).build());
            Worker b = new Worker(q, job -> null, workerOptions().concurrency(3).build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 4, "all completed");
            } finally {
                a.close();
                b.close();
            }
            // the fetch times (processedOn, written by the fetch that the limiter admitted), not the processors'
            // start times, which a busy machine can push into the next window
            List<Long> fetched = new ArrayList<>();
            for (String id : ids) {
                fetched.add(Long.parseLong(redis().hget(key(q, id), "processedOn")));
            }
            List<Integer> perWindow = startsPerWindow(fetched, 250);
            assertEquals(List.of(1, 1, 1, 1), perWindow, "one job per window over two workers: " + fetched);
        }
    }

    @Test
    void rateLimitExceptionPutsTheJobBackWithoutSpendingAnAttempt() throws Exception {
        String q = queueName("rl-exception");
        AtomicInteger calls = new AtomicInteger();
        ConcurrentLinkedQueue<Long> starts = new ConcurrentLinkedQueue<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(1).build());
            Worker[] self = new Worker[1];
            CountDownLatch started = new CountDownLatch(1);
            Worker worker = new Worker(q, j -> {
                starts.add(System.currentTimeMillis());
                if (calls.incrementAndGet() == 1) {
                    started.await(5, TimeUnit.SECONDS);
                    self[0].rateLimit(Duration.ofMillis(400));
                    throw new RateLimitException();
                }
                return "done";
            }, workerOptions().build());
            self[0] = worker;
            started.countDown();
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
            } finally {
                worker.close();
            }
            Map<String, String> h = hash(q, job.id());
            assertEquals("1", h.get("atm"), "the rate-limited run spent no attempt");
            assertEquals("2", h.get("ats"), "but it was started");
            assertNull(h.get("failedReason"));
            assertTrue(events(q, "failed", job.id()).isEmpty());
            assertEquals(1, events(q, "waiting", job.id()).stream().filter(e -> "active".equals(e.get("prev")))
                    .count(), "back to wait");
            List<Long> s = new ArrayList<>(starts);
            assertTrue(s.get(1) - s.get(0) >= 400 - CLOCK_SLACK_MS, "the second run after the limit: " + s);
        }
    }

    @Test
    void aRateLimitedPrioritizedJobGoesToTheFrontOfItsPriority() {
        String q = queueName("rl-prio");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("j", Map.of(), JobOptions.builder().priority(3).build());
            queue.add("j", Map.of(), JobOptions.builder().priority(3).build());
            Job active = JobOpsFixtures.activate(queue, "tok-1");
            assertEquals(first.id(), active.id());
            long ttl = queue.context().await(io.bull4j.internal.script.MoveLimitedToWait.run(
                    queue.context().scripts(), queue.context().keys, active.id(), "tok-1"), "limited");
            assertEquals(0, ttl, "no limiter key: no wait");
            assertEquals(3L * 4294967296L, redis().zscore(key(q, "prioritized"), first.id()).longValue(),
                    "counter 0: ahead of its priority");
            assertEquals(first.id(), JobOpsFixtures.activate(queue, "tok-2").id());
        }
    }

    @Test
    void getRateLimitTtlAndRemoveRateLimitKey() {
        String q = queueName("rl-ttl");
        try (Queue queue = new Queue(q, queueOptions())) {
            assertEquals(-2, queue.getRateLimitTtl(), "no window and no global max: the key's PTTL");
            assertEquals(0, queue.getRateLimitTtl(1), "nothing counted yet");
            queue.add("j", Map.of());
            queue.add("j", Map.of());
            assertTrue(fetch(queue, "t:1", 1, 5000).isPresent());
            assertTrue(queue.getRateLimitTtl(1) > 4000, "max reached: the window's ms left");
            assertEquals(0, queue.getRateLimitTtl(2), "below that max");
            queue.setGlobalRateLimit(1, Duration.ofSeconds(5));
            assertTrue(queue.getRateLimitTtl() > 4000, "0 uses the global max");
            assertTrue(queue.removeRateLimitKey());
            assertEquals(0, queue.getRateLimitTtl());
            queue.rateLimit(Duration.ofSeconds(7));
            assertEquals("9007199254740991", redis().get(key(q, "limiter")), "BullMQ's manual limit");
            assertTrue(queue.getRateLimitTtl(1000) > 6000);
            assertTrue(fetch(queue, "t:2", 0, 0).rateLimitMs() > 6000, "a manual limit holds any worker");
            assertThrows(ValidationException.class, () -> queue.getRateLimitTtl(-1));
            assertThrows(ValidationException.class, () -> queue.rateLimit(Duration.ZERO));
            assertThrows(ValidationException.class, () -> queue.setGlobalRateLimit(0, Duration.ofSeconds(1)));
            assertThrows(ValidationException.class, () -> WorkerOptions.builder().limiter(1, Duration.ZERO));
            ValidationException e = assertThrows(ValidationException.class,
                    () -> WorkerOptions.builder().limiter(0, Duration.ofSeconds(1)));
            assertTrue(e.getMessage().contains("limiter.max"));
        }
    }

    @Test
    void aRateLimitedWorkerDoesNotPoll() throws Exception {
        String q = queueName("rl-idle");
        // a server of this test's own, so that only this worker's script calls are counted
        try (io.bull4j.support.RedisTestServer server = io.bull4j.support.RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri());
             Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
            long t0 = System.currentTimeMillis();
            queue.rateLimit(Duration.ofMillis(1500));
            Job job = queue.add("j", Map.of());
            long calls0 = scriptCalls(server);
            // as in BullMQ, a manual limit holds workers that know a max (their limiter, or the global one)
            Worker worker = new Worker(q, j -> null, WorkerOptions.builder().connection(conn)
                    .drainDelay(Duration.ofSeconds(1)).limiter(10, Duration.ofSeconds(1)).build());
            try {
                eventually(WAIT, () -> server.sync().zscore(key(q, "completed"), job.id()) != null, "completed");
            } finally {
                worker.close();
            }
            long processedOn = Long.parseLong(server.sync().hget(key(q, job.id()), "processedOn"));
            assertTrue(processedOn - t0 >= 1500 - CLOCK_SLACK_MS, "held by the limit: " + (processedOn - t0));
            long calls = scriptCalls(server) - calls0;
            assertTrue(calls < 20, "a rate-limited worker waits out the window, made " + calls + " script calls");
        }
    }

    @Test
    void priorityAndFifoAreKeptUnderTheLimit() throws Exception {
        String q = queueName("rl-order");
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("p3", Map.of(), JobOptions.builder().priority(3).build());
            queue.add("p1a", Map.of(), JobOptions.builder().priority(1).build());
            queue.add("p2", Map.of(), JobOptions.builder().priority(2).build());
            queue.add("p1b", Map.of(), JobOptions.builder().priority(1).build());
            queue.add("p0", Map.of());
            Worker worker = new Worker(q, job -> order.add(job.name()) ? null : null,
                    workerOptions().limiter(1, Duration.ofMillis(100)).build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 5, "all completed");
            } finally {
                worker.close();
            }
            assertEquals(List.of("p0", "p1a", "p1b", "p2", "p3"), new ArrayList<>(order));
        }
    }

    @Test
    void delayedJobsArePromotedWhileALongLimitHolds() throws Exception {
        String q = queueName("rl-promote");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.rateLimit(Duration.ofSeconds(20));
            Job job = queue.add("j", Map.of(), JobOptions.builder().delay(Duration.ofMillis(300)).build());
            Worker worker = new Worker(q, j -> null, workerOptions().limiter(5, Duration.ofSeconds(1))
                    .maximumRateLimitDelay(Duration.ofMillis(200)).build());
            try {
                eventually(WAIT, () -> redis().lrange(key(q, "wait"), 0, -1).contains(job.id()),
                        "a limited worker that asks again every 200 ms promoted the due job");
                assertNull(redis().zscore(key(q, "completed"), job.id()), "and did not run it");
                assertTrue(queue.getRateLimitTtl(1) > 10_000, "the limit still holds");
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void closeIsQuickWhileRateLimited() throws Exception {
        String q = queueName("rl-close");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("j", Map.of());
            queue.add("j", Map.of());
            // one job per 30 s: the first completes, and the fetch chained to its finish meets the limit
            Worker worker = new Worker(q, j -> null, workerOptions().limiter(1, Duration.ofSeconds(30)).build());
            eventually(WAIT, () -> redis().zscore(key(q, "completed"), first.id()) != null, "first completed");
            java.util.concurrent.CompletableFuture<Void> closed =
                    java.util.concurrent.CompletableFuture.runAsync(worker::close);
            closed.get(10, TimeUnit.SECONDS); // not the 30 s window
            assertEquals(1, redis().llen(key(q, "wait")), "the second job is still there for later");
            assertTrue(queue.getRateLimitTtl(1) > 15_000, "the window still holds");
        }
    }

    /** EVALSHA and EVAL calls the server has run so far. */
    private static long scriptCalls(io.bull4j.support.RedisTestServer server) {
        long n = 0;
        for (String line : server.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                n += Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"));
            }
        }
        return n;
    }
}
