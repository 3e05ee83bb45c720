package io.bull4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 9, defects 5 and 8: ids that are the queue's own key names, blank queue names, prefixes with ':' and
 * delays past what a delayed score can hold are refused before any write; unreadable data fails the job with a
 * reason naming the field and the job.
 */
class ReliabilityValidationTest {
    private static void rejects(String field, Executable call) {
        ValidationException e = assertThrows(ValidationException.class, call);
        assertEquals(field, e.field(), e.getMessage());
    }

    @Test
    void jobIdsThatAreQueueKeyNamesAreRefused() {
        String q = queueName("reserved");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (String id : List.of("meta", "wait", "id", "events", "active", "delayed", "prioritized",
                    "completed", "failed", "paused", "stalled", "limiter", "marker", "pc", "repeat", "de",
                    "stalled-check", "metrics", "waiting-children")) {
                rejects("jobId", () -> queue.add("x", Map.of(), JobOptions.builder().jobId(id).build()));
            }
            assertEquals(List.of(key(q, "meta")), redis().keys(key(q, "*")), "only the meta hash, no job");
            assertEquals("hash", redis().type(key(q, "meta")));
            assertNull(redis().hget(key(q, "meta"), "data"), "meta was not taken for a job");
        }
    }

    @Test
    void blankQueueNamesAndPrefixesWithAColonAreRefused() {
        rejects("queueName", () -> new Queue(" ", queueOptions()));
        rejects("queueName", () -> new Worker("\t", j -> null, workerOptions().build()));
        rejects("prefix", () -> QueueOptions.builder().prefix("a:b"));
        rejects("prefix", () -> QueueOptions.builder().prefix(" "));
        rejects("prefix", () -> WorkerOptions.builder().prefix("a:b"));
        rejects("prefix", () -> QueueEventsOptions.builder().prefix("a:b"));
        assertEquals(List.of(), redis().keys("a:b:*"));
    }

    @Test
    void delaysPastTheLargestDelayedScoreAreRefused() {
        String q = queueName("delay-bound");
        try (Queue queue = new Queue(q, queueOptions())) {
            rejects("delay", () -> JobOptions.builder().delay(Duration.ofMillis(Long.MAX_VALUE)));
            rejects("delay", () -> JobOptions.builder().delay(Duration.ofSeconds(Long.MAX_VALUE)));
            // within the static bound, but due after MAX_DUE_MS once added to now
            rejects("delay", () -> queue.add("x", Map.of(), JobOptions.builder()
                    .delay(JobOptions.MAX_DELAY).build()));
            assertEquals(0L, redis().zcard(key(q, "delayed")));
            assertNull(redis().get(key(q, "id")), "no id was taken");
            Job ok = queue.add("x", Map.of(), JobOptions.builder().delay(Duration.ofDays(3650)).build());
            double score = redis().zscore(key(q, "delayed"), ok.id());
            assertTrue(score < 9007199254740992.0, "score below 2^53: " + score);
        }
    }

    @Test
    void corruptDataFailsTheJobNamingTheFieldAndTheJob() throws Exception {
        String q = queueName("corrupt-data");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("x", Map.of("a", 1));
            redis().hset(key(q, job.id()), "data", "{not json");
            Recorder rec = new Recorder();
            try (Worker worker = new Worker(q, j -> j.data(Map.class), workerOptions().build(), rec)) {
                eventually(Duration.ofSeconds(15), () -> redis().zscore(key(q, "failed"), job.id()) != null,
                        "the job fails");
            }
            String reason = redis().hget(key(q, job.id()), "failedReason");
            assertTrue(reason.contains("data") && reason.contains(job.id()), reason);
            JobException e = assertThrows(JobException.class, () -> queue.getJob(job.id()).data());
            assertEquals(JobException.Reason.BAD_DATA, e.reason());
            assertEquals(job.id(), e.jobId());
        }
    }

    @Test
    void aBackoffPastTheLargestDelayedScoreIsCutToIt() throws Exception {
        String q = queueName("backoff-bound");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("x", Map.of(), JobOptions.builder().attempts(2)
                    .backoff(Backoff.fixed(Duration.ofMillis(JobOptions.MAX_DUE_MS))).build());
            try (Worker worker = new Worker(q, j -> {
                throw new IllegalStateException("fails");
            }, workerOptions().build())) {
                eventually(Duration.ofSeconds(15), () -> redis().zscore(key(q, "delayed"), job.id()) != null,
                        "the retry is scheduled");
            }
            double score = redis().zscore(key(q, "delayed"), job.id());
            assertEquals(JobOptions.MAX_DUE_MS, (long) Math.floor(score / 4096));
        }
    }
}
