package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Backoff between retries. The worker runs on a clock that stands still, so a backoff delay is read off the
 * delayed score and the {@code delay} field, and the job becomes due only when the test moves the clock.
 */
class WorkerBackoffTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static Processor failing() {
        return job -> {
            throw new IllegalStateException("boom " + job.attemptsMade());
        };
    }

    @Test
    void exponentialBackoffDoublesTheDelay() throws Exception {
        String q = queueName("expo");
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(4)
                    .backoff(Backoff.exponential(Duration.ofSeconds(1))).build());
            Worker worker = new Worker(q, failing(), workerOptions().clock(clock).build());
            try {
                long[] expected = {1000, 2000, 4000};
                for (int i = 0; i < expected.length; i++) {
                    long now = clock.millis();
                    assertDelayed(q, job.id(), i + 1, expected[i], now + expected[i]);
                    clock.advance(Duration.ofMillis(expected[i]));
                }
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), job.id()) != null, "final failure");
            } finally {
                worker.close();
            }
            assertEquals("4", hash(q, job.id()).get("atm"));
            assertEquals(4, json(hash(q, job.id()).get("stacktrace")).size());
            assertEquals(3, events(q, "delayed", job.id()).size());
            assertEquals("4", events(q, "retries-exhausted", job.id()).get(0).get("attemptsMade"));
        }
    }

    @Test
    void fixedBackoffKeepsTheDelay() throws Exception {
        String q = queueName("fixed");
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(3)
                    .backoff(Backoff.fixed(Duration.ofMillis(700))).build());
            Worker worker = new Worker(q, failing(), workerOptions().clock(clock).build());
            try {
                for (int i = 1; i <= 2; i++) {
                    assertDelayed(q, job.id(), i, 700, clock.millis() + 700);
                    clock.advance(Duration.ofMillis(700));
                }
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), job.id()) != null, "final failure");
            } finally {
                worker.close();
            }
            assertEquals("3", hash(q, job.id()).get("atm"));
        }
    }

    @Test
    void jitterStaysInItsRange() throws Exception {
        Backoff b = Backoff.fixed(Duration.ofMillis(1000)).withJitter(0.5);
        assertEquals(500, b.delayFor(1, 0.0).toMillis());
        assertEquals(999, b.delayFor(1, 0.999).toMillis());
        Backoff e = Backoff.exponential(Duration.ofMillis(1000)).withJitter(1.0);
        assertEquals(0, e.delayFor(3, 0.0).toMillis());
        assertEquals(3996, e.delayFor(3, 0.999).toMillis());

        String q = queueName("jitter");
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(2).backoff(b).build());
            Worker worker = new Worker(q, failing(), workerOptions().clock(clock).build());
            try {
                eventually(WAIT, () -> "1".equals(hash(q, job.id()).get("atm")), "first failure");
                long delay = Long.parseLong(hash(q, job.id()).get("delay"));
                assertTrue(delay >= 500 && delay < 1000, "delay " + delay + " outside [500, 1000)");
                long score = redis().zscore(key(q, "delayed"), job.id()).longValue();
                assertEquals(clock.millis() + delay, score / 4096);
                assertEquals(1000, json(hash(q, job.id()).get("opts")).get("backoff").get("delay").asLong());
                assertEquals(0.5, json(hash(q, job.id()).get("opts")).get("backoff").get("jitter").asDouble());
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void customStrategyResolvesNamedBackoff() throws Exception {
        String q = queueName("custom");
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        List<String> calls = new CopyOnWriteArrayList<>();
        BackoffStrategy linear = (attempts, type, err, job) -> {
            calls.add(attempts + "/" + type + "/" + err.getMessage() + "/" + job.id());
            return type.equals("linear") ? Duration.ofMillis(attempts * 300L) : null;
        };
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(3)
                    .backoff(Backoff.custom("linear", Duration.ofMillis(100))).build());
            Worker worker = new Worker(q, failing(), workerOptions().clock(clock).backoffStrategy(linear).build());
            try {
                assertDelayed(q, job.id(), 1, 300, clock.millis() + 300);
                clock.advance(Duration.ofMillis(300));
                assertDelayed(q, job.id(), 2, 600, clock.millis() + 600);
                clock.advance(Duration.ofMillis(600));
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), job.id()) != null, "final failure");
            } finally {
                worker.close();
            }
            assertEquals(List.of("1/linear/boom 0/" + job.id(), "2/linear/boom 1/" + job.id()), calls,
                    "the strategy is not asked after the last attempt");
            assertEquals("linear", json(hash(q, job.id()).get("opts")).get("backoff").get("type").asText());
        }
    }

    @Test
    void customStrategyReturningNullOrMissingFailsAtOnce() throws Exception {
        String q = queueName("customnull");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job refused = queue.add("a", Map.of(), JobOptions.builder().attempts(5)
                    .backoff(Backoff.custom("never", Duration.ofMillis(100))).build());
            Worker worker = new Worker(q, failing(), workerOptions()
                    .backoffStrategy((attempts, type, err, job) -> null).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), refused.id()) != null, "failed now");
            } finally {
                worker.close();
            }
            assertEquals("1", hash(q, refused.id()).get("atm"));
            assertTrue(events(q, "retries-exhausted", refused.id()).isEmpty(), "attempts were left");
            assertTrue(events(q, "delayed", refused.id()).isEmpty());

            // no strategy at all for a custom type: failed now too
            Job unknown = queue.add("b", Map.of(), JobOptions.builder().attempts(5)
                    .backoff(Backoff.custom("nobody-knows", Duration.ofMillis(100))).build());
            Worker bare = new Worker(q, failing(), workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), unknown.id()) != null, "failed now");
            } finally {
                bare.close();
            }
            assertEquals("1", hash(q, unknown.id()).get("atm"));

            // a strategy that throws: failed now too, not stranded in active
            Job thrown = queue.add("c", Map.of(), JobOptions.builder().attempts(5)
                    .backoff(Backoff.custom("buggy", Duration.ofMillis(100))).build());
            Worker buggy = new Worker(q, failing(), workerOptions().backoffStrategy((attempts, type, err, job) -> {
                throw new IllegalStateException("strategy bug");
            }).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), thrown.id()) != null, "failed now");
            } finally {
                buggy.close();
            }
            assertEquals("boom 0", hash(q, thrown.id()).get("failedReason"));
        }
    }

    /** Waits until the job sits in delayed after failed attempt {@code atm}, then checks where and for how long. */
    private static void assertDelayed(String q, String id, int atm, long delayMs, long dueMs) throws Exception {
        eventually(WAIT, () -> Integer.toString(atm).equals(hash(q, id).get("atm"))
                && redis().zscore(key(q, "delayed"), id) != null, "attempt " + atm + " moved to delayed");
        Map<String, String> h = hash(q, id);
        assertEquals(Long.toString(delayMs), h.get("delay"), "delay field after attempt " + atm);
        assertEquals(dueMs * 4096, redis().zscore(key(q, "delayed"), id).longValue(), "score after attempt " + atm);
        assertEquals("boom " + (atm - 1), h.get("failedReason"), "each failed attempt stores its reason");
        assertEquals(atm, json(h.get("stacktrace")).size());
        List<Map<String, String>> delayed = events(q, "delayed", id);
        assertEquals(atm, delayed.size());
        assertEquals(Long.toString(dueMs), delayed.get(atm - 1).get("delay"));
        assertTrue(events(q, "failed", id).isEmpty(), "a retry is not a failure event");
    }
}
