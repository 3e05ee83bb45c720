package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * WorkerOptions.metrics: the per-minute counts of finished jobs in BullMQ's keys (metrics:completed / :failed and
 * their :data lists), with finish times set by the jobs themselves through the worker's clock, and
 * Queue.getMetrics reading them back.
 */
class WorkerMetricsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Some minute's 10th second: the jobs below move the clock by whole minutes from it. */
    private static final long T0 = 29_000_000L * 60_000 + 10_000;

    /** A job that sets the worker's clock to {@code minute} minutes after T0 before it finishes. */
    private static Map<String, Object> at(int minute, boolean fail) {
        return Map.of("at", T0 + minute * 60_000L, "fail", fail);
    }

    /** Runs a metrics worker over the jobs (added in order) until {@code finals} jobs finished for good. */
    private static void run(String q, int maxDataPoints, int finals, List<Map<String, Object>> jobs,
                            JobOptions jobOpts) throws Exception {
        ManualClock clock = new ManualClock(T0);
        try (Queue queue = new Queue(q, queueOptions())) {
            for (Map<String, Object> data : jobs) {
                queue.add("m", data, jobOpts);
            }
            Worker worker = new Worker(q, job -> {
                Map<?, ?> d = job.data(Map.class);
                clock.advance(Duration.ofMillis(((Number) d.get("at")).longValue() - clock.millis()));
                if (Boolean.TRUE.equals(d.get("fail"))) {
                    throw new IllegalStateException("failed on purpose");
                }
                return "ok";
            }, workerOptions().clock(clock).metrics(maxDataPoints).build());
            try {
                eventually(WAIT, () -> queue.getJobCounts(JobState.COMPLETED, JobState.FAILED).values().stream()
                        .mapToLong(Long::longValue).sum() == finals, finals + " jobs finished");
            } finally {
                worker.close();
            }
        }
    }

    private static List<String> data(String q, String type) {
        return redis().lrange(key(q, "metrics:" + type + ":data"), 0, -1);
    }

    @Test
    void finishesAreCountedPerMinuteAsBullMqCountsThem() throws Exception {
        String q = queueName("metrics");
        // minute 0: two completions; minute 1: one (closes minute 0: 2); minute 4: one (closes minute 1: 1, and
        // minutes 2 and 3: 0); a failure in minute 4 counts in metrics:failed only
        run(q, 10, 5, List.of(at(0, false), at(0, false), at(1, false), at(4, false), at(4, true)), null);

        assertEquals(Map.of("count", "4", "prevTS", Long.toString(T0 + 4 * 60_000), "prevCount", "3"),
                redis().hgetall(key(q, "metrics:completed")));
        assertEquals(List.of("0", "0", "1", "2"), data(q, "completed"), "newest minute first");
        assertEquals(Map.of("count", "1", "prevTS", Long.toString(T0 + 4 * 60_000), "prevCount", "0"),
                redis().hgetall(key(q, "metrics:failed")));
        assertEquals(List.of(), data(q, "failed"), "the first count only opens the first minute");

        try (Queue queue = new Queue(q, queueOptions())) {
            JobMetrics all = queue.getMetrics(JobState.COMPLETED);
            assertEquals(new JobMetrics(4, Instant.ofEpochMilli(T0 + 4 * 60_000), 3, List.of(0L, 0L, 1L, 2L), 4),
                    all);
            JobMetrics page = queue.getMetrics(JobState.COMPLETED, 1, 2);
            assertEquals(List.of(0L, 1L), page.data());
            assertEquals(4, page.dataPoints(), "the list's whole length, whatever the page");
            assertEquals(1, queue.getMetrics(JobState.FAILED).count());
        }
    }

    @Test
    void skippedMinutesAreCappedAndTheListKeepsTheNewestPoints() throws Exception {
        String q = queueName("metrics-cap");
        // maxDataPoints 3: minute 0 (1 job), minute 1 (closes 0: 1), minute 2 (closes 1: 1), minute 30: 28 minutes
        // skipped, capped at 3 points: 1 then two zeros, and the list trimmed to 3
        run(q, 3, 4, List.of(at(0, false), at(1, false), at(2, false), at(30, false)), null);
        assertEquals(List.of("0", "0", "1"), data(q, "completed"));
        assertEquals("4", redis().hget(key(q, "metrics:completed"), "count"));
        assertEquals("3", redis().hget(key(q, "metrics:completed"), "prevCount"));
    }

    @Test
    void retriedAttemptsAreNotCountedAndAWorkerWithoutMetricsWritesNothing() throws Exception {
        String q = queueName("metrics-retry");
        JobOptions twice = JobOptions.builder().attempts(2).build();
        // each job fails both attempts: one failure counted per job, not per attempt
        run(q, 5, 2, List.of(at(0, true), at(0, true)), twice);
        assertEquals("2", redis().hget(key(q, "metrics:failed"), "count"));
        assertNull(redis().hget(key(q, "metrics:completed"), "count"));

        String off = queueName("metrics-off");
        try (Queue queue = new Queue(off, queueOptions())) {
            queue.add("m", Map.of());
            Worker worker = new Worker(off, job -> "ok", workerOptions().build());
            try {
                eventually(WAIT, () -> queue.getJobCounts(JobState.COMPLETED).get(JobState.COMPLETED) == 1,
                        "job completed");
            } finally {
                worker.close();
            }
            assertEquals(0, redis().exists(key(off, "metrics:completed"), key(off, "metrics:completed:data")));
            assertEquals(new JobMetrics(0, null, 0, List.of(), 0), queue.getMetrics(JobState.COMPLETED));
        }
    }

    @Test
    void badInputIsRefused() {
        ValidationException e = assertThrows(ValidationException.class, () -> WorkerOptions.builder().metrics(-1));
        assertTrue(e.getMessage().contains("metrics.maxDataPoints"), e.getMessage());
        assertEquals(0, WorkerOptions.builder().build().metricsMaxDataPoints());
        assertEquals(10080, WorkerOptions.builder().metrics(10080).build().metricsMaxDataPoints());
        WorkerOptions week = WorkerOptions.builder().metrics(10080).build();
        assertEquals(week, week.toBuilder().build(), "toBuilder keeps metrics");
        assertNotEquals(week, week.toBuilder().metrics(0).build());
        assertTrue(week.toString().contains("metrics=10080"), week.toString());
        String q = queueName("metrics-bad");
        try (Queue queue = new Queue(q, queueOptions())) {
            List<JobState> refused = new ArrayList<>();
            for (JobState s : JobState.values()) {
                if (s != JobState.COMPLETED && s != JobState.FAILED) {
                    ValidationException x = assertThrows(ValidationException.class, () -> queue.getMetrics(s));
                    assertTrue(x.getMessage().contains("type"), x.getMessage());
                    refused.add(s);
                }
            }
            assertEquals(JobState.values().length - 2, refused.size());
            assertThrows(ValidationException.class, () -> queue.getMetrics(null));
        }
    }
}
