package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.JobOpsFixtures.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job.getState in every state, Job.retry of finished jobs and Job.remove, checked on Redis and the stream. */
class JobOpsStateTest {

    @Test
    void getStateReportsEveryState() {
        String q = queueName("state");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job active = activate(queueWith(queue, "a"), "tok-a");
            Job completed = finished(queue, "c", true, "1");
            Job failed = finished(queue, "f", false, "boom");
            Job prioritized = queue.add("p", Map.of(), JobOptions.builder().priority(3).build());
            Job delayed = queue.add("d", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build());
            Job waiting = queue.add("w", Map.of());
            // no flows yet: a parent waiting for children is written as BullMQ stores one
            Job parent = queue.add("parent", Map.of());
            redis().lrem(key(q, "wait"), 0, parent.id());
            redis().zadd(key(q, "waiting-children"), 1, parent.id());

            assertEquals(JobState.ACTIVE, active.getState());
            assertEquals(JobState.COMPLETED, completed.getState());
            assertEquals(JobState.FAILED, failed.getState());
            assertEquals(JobState.PRIORITIZED, prioritized.getState());
            assertEquals(JobState.DELAYED, delayed.getState());
            assertEquals(JobState.WAITING, waiting.getState());
            assertEquals(JobState.WAITING_CHILDREN, parent.getState());
            assertTrue(waiting.remove());
            assertEquals(JobState.UNKNOWN, waiting.getState());
        }
    }

    private static Queue queueWith(Queue queue, String name) {
        queue.add(name, Map.of());
        return queue;
    }

    @Test
    void retryPutsAFailedJobBackInWaitKeepingItsAttempts() {
        String q = queueName("retry-failed");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = finished(queue, "f", false, "boom");
            assertEquals("boom", job.failedReason());
            redis().del(key(q, "marker"));

            job.retry();

            Map<String, String> hash = redis().hgetall(key(q, job.id()));
            assertFalse(hash.containsKey("failedReason"));
            assertFalse(hash.containsKey("finishedOn"));
            assertFalse(hash.containsKey("processedOn"));
            assertEquals("1", hash.get("atm"));
            assertEquals("1", hash.get("ats"));
            assertTrue(hash.containsKey("stacktrace"), "the failures so far stay on record");
            assertNull(redis().zscore(key(q, "failed"), job.id()));
            assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
            assertEquals(Map.of("event", "waiting", "jobId", job.id(), "prev", "failed"), lastEvent(q, job.id()));
            assertEquals(JobState.WAITING, job.getState());
        }
    }

    @Test
    void retryOfACompletedJobCanResetItsAttempts() {
        String q = queueName("retry-completed");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = finished(queue, "c", true, "{\"ok\":true}");
            assertEquals("{\"ok\":true}", job.returnValueJson());

            job.retry(JobState.COMPLETED, true, true);

            Map<String, String> hash = redis().hgetall(key(q, job.id()));
            assertFalse(hash.containsKey("returnvalue"));
            assertFalse(hash.containsKey("finishedOn"));
            assertFalse(hash.containsKey("atm"));
            assertFalse(hash.containsKey("ats"));
            assertNull(redis().zscore(key(q, "completed"), job.id()));
            assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("completed", lastEvent(q, job.id()).get("prev"));
            Job again = job.refresh();
            assertEquals(0, again.attemptsMade());
            assertNull(again.returnValueJson());
        }
    }

    @Test
    void retryOfAPrioritizedJobGoesToPrioritized() {
        String q = queueName("retry-prio");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job added = queue.add("p", Map.of(), JobOptions.builder().priority(4).build());
            Job active = activate(queue, "tok");
            finish(queue, active, false, "boom");
            long pc = Long.parseLong(redis().get(key(q, "pc")));

            added.retry(JobState.FAILED);

            assertEquals(4.0 * (1L << 32) + pc + 1, redis().zscore(key(q, "prioritized"), added.id()));
            assertEquals(0, redis().llen(key(q, "wait")));
        }
    }

    @Test
    void retryRefusesAJobNotInThatState() {
        String q = queueName("retry-refused");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job failed = finished(queue, "f", false, "boom");
            JobException e = assertThrows(JobException.class, () -> failed.retry(JobState.COMPLETED));
            assertEquals(JobException.Reason.NOT_IN_STATE, e.reason());
            assertEquals("boom", redis().hget(key(q, failed.id()), "failedReason"), "nothing changed");
            assertNotNull(redis().zscore(key(q, "failed"), failed.id()));

            Job waiting = queue.add("w", Map.of());
            assertEquals(JobException.Reason.NOT_IN_STATE,
                    assertThrows(JobException.class, waiting::retry).reason());
            assertEquals("state",
                    assertThrows(ValidationException.class, () -> waiting.retry(JobState.ACTIVE)).field());
            assertEquals(List.of(waiting.id()), redis().lrange(key(q, "wait"), 0, -1));

            assertTrue(waiting.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, waiting::retry).reason());
        }
    }

    @Test
    void aRefusalForTheWrongStateNamesTheStateTheJobHadToBeIn() {
        // bullmq 6.7.0 says "Job 1 is not in the failed state. reprocessJob": which state was expected is the
        // first thing an operator needs (retry(COMPLETED) on a failed job, promote on a waiting one)
        String q = queueName("not-in-state-message");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job failed = finished(queue, "f", false, "boom");
            assertEquals("Job " + failed.id() + " is not in the completed state. reprocessJob",
                    assertThrows(JobException.class, () -> failed.retry(JobState.COMPLETED)).getMessage());
            Job waiting = queue.add("w", Map.of());
            assertEquals("Job " + waiting.id() + " is not in the failed state. reprocessJob",
                    assertThrows(JobException.class, waiting::retry).getMessage());
            assertEquals("Job " + waiting.id() + " is not in the delayed state. promote",
                    assertThrows(JobException.class, waiting::promote).getMessage());
            assertEquals("Job " + waiting.id() + " is not in the delayed state. changeDelay",
                    assertThrows(JobException.class, () -> waiting.changeDelay(Duration.ofSeconds(1))).getMessage());
        }
    }

    @Test
    void removeDeletesAnIdleJobButNotALockedOne() {
        String q = queueName("remove");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("a", Map.of());
            Job active = activate(queue, "tok");
            Job waiting = queue.add("w", Map.of());
            waiting.log("a line");

            assertTrue(waiting.remove());
            assertEquals(0, redis().exists(key(q, waiting.id()), key(q, waiting.id() + ":logs")));
            assertEquals(0, redis().llen(key(q, "wait")));
            assertEquals(Map.of("event", "removed", "jobId", waiting.id(), "prev", "wait"),
                    lastEvent(q, waiting.id()));

            assertFalse(active.remove(), "a worker holds its lock");
            assertEquals(1, redis().exists(key(q, active.id())));
            assertEquals(List.of(active.id()), redis().lrange(key(q, "active"), 0, -1));
            assertTrue(events(q, active.id()).stream().noneMatch(e -> "removed".equals(e.get("event"))));
        }
    }
}
