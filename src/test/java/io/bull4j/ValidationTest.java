package io.bull4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Bad input: a ValidationException naming the field, and nothing written to Redis. */
class ValidationTest {
    /** Jackson cannot write it: it refers to itself. */
    public static final class Loop {
        public Loop getSelf() {
            return this;
        }
    }

    private static void rejects(String field, Executable call) {
        ValidationException e = assertThrows(ValidationException.class, call);
        assertEquals(field, e.field(), e.getMessage());
    }

    @Test
    void rateLimitWindowsPastWhatRedisTakesAreRejectedBeforeAnyWrite() {
        String q = queueName("limit-expiry");
        try (Queue queue = new Queue(q, queueOptions())) {
            Duration longest = Duration.ofMillis(Long.MAX_VALUE);
            // a global window is read by every worker's fetch (Node's too), whose PEXPIRE would fail on it
            rejects("duration", () -> queue.setGlobalRateLimit(1, longest));
            rejects("duration", () -> queue.rateLimit(longest)); // was Redis's "invalid expire time"
            rejects("duration", () -> queue.rateLimit(Duration.ofSeconds(Long.MAX_VALUE))); // was ArithmeticException
            assertNull(queue.getGlobalRateLimit());
            assertEquals(0L, redis().exists(key(q, "limiter")));
            queue.setGlobalRateLimit(1, ValidationException.MAX_EXPIRY);
            assertEquals(ValidationException.MAX_EXPIRY, queue.getGlobalRateLimit().duration());
        }
    }

    @Test
    void badQueueNamesAreRejectedBeforeAnyWrite() {
        rejects("queueName", () -> new Queue("", queueOptions()));
        rejects("queueName", () -> new Queue(null, queueOptions()));
        rejects("queueName", () -> new Queue("a:b", queueOptions()));
        rejects("queueName", () -> new Worker("", j -> null, workerOptions().build()));
        rejects("queueName", () -> new Worker("a:b", j -> null, workerOptions().build()));
        assertEquals(List.of(), redis().keys("bull:a:b:*"));
        assertEquals(List.of(), redis().keys("bull::*"));
    }

    @Test
    void durationsAndTimesPastWhatALongHoldsNameTheirField() {
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
        rejects("timeout", () -> JobOptions.builder().timeout(huge));
        rejects("timestamp", () -> JobOptions.builder().timestamp(java.time.Instant.MAX));
        rejects("every", () -> RepeatOptions.builder().every(huge));
        rejects("offset", () -> RepeatOptions.builder().offset(huge));
        rejects("deduplication.ttl", () -> Deduplication.builder("d").ttl(huge));
        rejects("backoff.delay", () -> Backoff.fixed(huge));
        rejects("backoff.delay", () -> Backoff.exponential(Duration.ofSeconds(Long.MIN_VALUE)));
        rejects("keepJobs.age", () -> KeepJobs.age(huge));
        rejects("lockDuration", () -> WorkerOptions.builder().lockDuration(huge));
        rejects("drainDelay", () -> WorkerOptions.builder().drainDelay(huge));
        rejects("limiter.duration", () -> WorkerOptions.builder().limiter(10, huge));
        // expiries handed to Redis stop at 2^53 - 1 ms, what a Lua number holds exactly (a dedup ttl past it failed
        // in Redis after the add had taken an id)
        Duration longest = Duration.ofMillis(Long.MAX_VALUE);
        rejects("deduplication.ttl", () -> Deduplication.builder("d").ttl(longest));
        rejects("lockDuration", () -> WorkerOptions.builder().lockDuration(longest));
        // the rate limiter's window is a PEXPIRE too: past 2^53 - 1 ms the fetch's script failed after its INCR
        // and its move to active, leaving the limiter key without an expiry (every worker, Node's too, limited for
        // ever) and the job active under no lock
        rejects("limiter.duration", () -> WorkerOptions.builder().limiter(1, longest));
        assertEquals(ValidationException.MAX_EXPIRY,
                Deduplication.builder("d").ttl(ValidationException.MAX_EXPIRY).build().ttl());
        // the longest that fits is still taken
        assertEquals(ValidationException.MAX_DURATION.toMillis(),
                KeepJobs.age(ValidationException.MAX_DURATION).age().toMillis());
    }

    @Test
    void badJobOptionsAreRejectedNamingTheField() {
        rejects("jobId", () -> JobOptions.builder().jobId("123"));
        rejects("jobId", () -> JobOptions.builder().jobId("-7"));
        rejects("jobId", () -> JobOptions.builder().jobId("0"));
        rejects("jobId", () -> JobOptions.builder().jobId("a:b"));
        rejects("jobId", () -> JobOptions.builder().jobId("0:x:y"));
        assertEquals("a:b:c", JobOptions.builder().jobId("a:b:c").build().jobId(), "three segments are allowed");
        rejects("delay", () -> JobOptions.builder().delay(Duration.ofMillis(-1)));
        rejects("attempts", () -> JobOptions.builder().attempts(-1));
        rejects("priority", () -> JobOptions.builder().priority(-1));
        rejects("priority", () -> JobOptions.builder().priority(JobOptions.MAX_PRIORITY + 1));
        assertEquals(JobOptions.MAX_PRIORITY, JobOptions.builder().priority(2_097_151).build().priority());
        rejects("stackTraceLimit", () -> JobOptions.builder().stackTraceLimit(-1));
        rejects("sizeLimit", () -> JobOptions.builder().sizeLimit(0));
        rejects("backoff.jitter", () -> Backoff.fixed(Duration.ofSeconds(1)).withJitter(1.5));
        rejects("backoff.delay", () -> Backoff.exponential(Duration.ofSeconds(-1)));
        rejects("keepJobs.age", () -> KeepJobs.age(Duration.ofSeconds(-1)));
        rejects("keepJobs.age", () -> KeepJobs.of(1, Duration.ofMillis(-1)));
    }

    @Test
    void badAddsWriteNothing() throws Exception {
        String q = queueName("badadd");
        try (Queue queue = new Queue(q, queueOptions())) {
            rejects("data", () -> queue.add("loop", new Loop()));
            rejects("data", () -> queue.addAsync("loop", new Loop()));
            rejects("name", () -> queue.add(null, Map.of()));
            rejects("data", () -> queue.add("big", "x".repeat(100), JobOptions.builder().sizeLimit(10).build()));
            // one bad job in a bulk: none of them is written
            rejects("data", () -> queue.addBulk(List.of(BulkJob.of("ok", Map.of()), BulkJob.of("loop", new Loop()))));
            assertEquals(0, idCounter(q));
            assertEquals(List.of(key(q, "meta")), redis().keys(key(q, "*")), "only the queue's own meta");
        }
    }

    @Test
    void badWorkerOptionsAreRejectedNamingTheField() {
        String q = queueName("badworker");
        rejects("processor", () -> new Worker(q, null, workerOptions().build()));
        rejects("options", () -> new Worker(q, j -> null, null));
        rejects("concurrency", () -> WorkerOptions.builder().concurrency(0));
        rejects("lockDuration", () -> WorkerOptions.builder().lockDuration(Duration.ZERO));
        rejects("lockRenewTime", () -> WorkerOptions.builder().lockDuration(Duration.ofSeconds(1))
                .lockRenewTime(Duration.ofSeconds(1)).build());
        rejects("lockRenewTime", () -> WorkerOptions.builder().lockDuration(Duration.ofSeconds(1))
                .lockRenewTime(Duration.ofSeconds(2)).build());
        rejects("stalledInterval", () -> WorkerOptions.builder().stalledInterval(Duration.ofMillis(-5)));
        rejects("stalledSweepInterval", () -> WorkerOptions.builder().stalledSweepInterval(Duration.ofMillis(-1)));
        rejects("stalledSweepInterval", () -> WorkerOptions.builder().stalledSweepInterval(Duration.ofNanos(500)));
        rejects("stalledSweepInterval", () -> WorkerOptions.builder().stalledSweepInterval(null));
        rejects("maxStalledCount", () -> WorkerOptions.builder().maxStalledCount(-1));
        rejects("drainDelay", () -> WorkerOptions.builder().drainDelay(Duration.ZERO));
        assertEquals(List.of(), redis().keys(key(q, "*")));
        assertTrue(redis().clientList().lines().noneMatch(l -> l.contains(
                java.util.Base64.getEncoder().encodeToString(q.getBytes()))), "no worker connection was opened");
    }
}
