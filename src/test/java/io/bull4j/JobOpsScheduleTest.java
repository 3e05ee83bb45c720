package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.bull4j.JobOpsFixtures.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job.promote, Job.changeDelay and Job.changePriority: where the job lands, its fields, markers and events. */
class JobOpsScheduleTest {
    private static final double SLOT = 1L << 32;
    private static final JobOptions IN_AN_HOUR = JobOptions.builder().delay(Duration.ofHours(1)).build();

    @Test
    void promoteMakesADelayedJobReadyNow() {
        String q = queueName("promote");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("w", Map.of());
            Job job = queue.add("d", Map.of(), IN_AN_HOUR);
            assertEquals("3600000", redis().hget(key(q, job.id()), "delay"));
            redis().del(key(q, "marker"));

            job.promote();

            assertNull(redis().zscore(key(q, "delayed"), job.id()));
            // the back of the line: consumers pop from the right
            assertEquals(List.of(job.id(), first.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("0", redis().hget(key(q, job.id()), "delay"));
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
            assertEquals(Map.of("event", "waiting", "jobId", job.id(), "prev", "delayed"), lastEvent(q, job.id()));
            assertEquals(Duration.ZERO, job.refresh().delay());
        }
    }

    @Test
    void promoteOfAPrioritizedDelayedJobGoesToPrioritized() {
        String q = queueName("promote-prio");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("d", Map.of(), IN_AN_HOUR.toBuilder().priority(9).build());
            job.promote();
            long pc = Long.parseLong(redis().get(key(q, "pc")));
            assertEquals(9 * SLOT + pc, redis().zscore(key(q, "prioritized"), job.id()));
            assertEquals(0, redis().llen(key(q, "wait")));
            assertEquals(JobState.PRIORITIZED, job.getState());
        }
    }

    @Test
    void promoteRefusesAJobThatIsNotDelayed() {
        String q = queueName("promote-refused");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of());
            int before = events(q, job.id()).size();
            assertEquals(JobException.Reason.NOT_IN_STATE,
                    assertThrows(JobException.class, job::promote).reason());
            assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(before, events(q, job.id()).size(), "no event");
            assertTrue(job.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, job::promote).reason());
        }
    }

    @Test
    void changeDelayReschedulesFromNowAndMovesTheMarker() {
        String q = queueName("change-delay");
        JobOpsFixtures.ManualClock clock = new JobOpsFixtures.ManualClock(Instant.parse("2030-01-01T00:00:00Z"));
        long now = clock.millis();
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            Job early = queue.add("early", Map.of(), IN_AN_HOUR);
            Job late = queue.add("late", Map.of(), JobOptions.builder().delay(Duration.ofHours(2)).build());
            long hour = Duration.ofHours(1).toMillis();
            assertEquals((double) (now + hour), redis().zscore(key(q, "marker"), "1"));

            clock.advance(Duration.ofMinutes(1));
            late.changeDelay(Duration.ofMinutes(10));

            long due = clock.millis() + Duration.ofMinutes(10).toMillis();
            assertEquals(due * 4096.0, redis().zscore(key(q, "delayed"), late.id()));
            assertEquals("600000", redis().hget(key(q, late.id()), "delay"));
            assertEquals(Map.of("event", "delayed", "jobId", late.id(), "delay", Long.toString(due)),
                    lastEvent(q, late.id()));
            assertEquals((double) due, redis().zscore(key(q, "marker"), "1"), "the marker follows the earliest job");

            // both due in the same millisecond: FIFO by the sequence in the score's low bits
            early.changeDelay(Duration.ofMinutes(10));
            assertEquals(due * 4096.0 + 1, redis().zscore(key(q, "delayed"), early.id()));
            assertEquals(Duration.ofMinutes(10), early.refresh().delay());
        }
    }

    @Test
    void changeDelayValidatesAndRefusesAJobThatIsNotDelayed() {
        String q = queueName("change-delay-refused");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job delayed = queue.add("d", Map.of(), IN_AN_HOUR);
            Double score = redis().zscore(key(q, "delayed"), delayed.id());
            assertEquals("delay", assertThrows(ValidationException.class,
                    () -> delayed.changeDelay(Duration.ofMillis(-1))).field());
            assertEquals("delay", assertThrows(ValidationException.class, () -> delayed.changeDelay(null)).field());
            assertEquals(score, redis().zscore(key(q, "delayed"), delayed.id()));

            Job waiting = queue.add("w", Map.of());
            assertEquals(JobException.Reason.NOT_IN_STATE, assertThrows(JobException.class,
                    () -> waiting.changeDelay(Duration.ofSeconds(5))).reason());
            assertEquals("0", redis().hget(key(q, waiting.id()), "delay"));
            assertEquals(List.of(waiting.id()), redis().lrange(key(q, "wait"), 0, -1));
        }
    }

    @Test
    void changePriorityMovesAWaitingJobBetweenWaitAndPrioritized() {
        String q = queueName("change-prio");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job other = queue.add("other", Map.of());
            Job job = queue.add("job", Map.of());

            job.changePriority(5);
            long pc = Long.parseLong(redis().get(key(q, "pc")));
            assertEquals(5 * SLOT + pc, redis().zscore(key(q, "prioritized"), job.id()));
            assertEquals(List.of(other.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("5", redis().hget(key(q, job.id()), "priority"));
            assertEquals(JobState.PRIORITIZED, job.getState());

            job.changePriority(0);
            assertNull(redis().zscore(key(q, "prioritized"), job.id()));
            assertEquals(List.of(job.id(), other.id()), redis().lrange(key(q, "wait"), 0, -1), "FIFO: at the back");
            assertEquals("0", redis().hget(key(q, job.id()), "priority"));

            job.changePriority(0, true);
            assertEquals(List.of(other.id(), job.id()), redis().lrange(key(q, "wait"), 0, -1), "lifo: at the front");

            job.changePriority(3, true);
            assertEquals(3 * SLOT, redis().zscore(key(q, "prioritized"), job.id()), "lifo: counter 0");
            assertEquals(3, job.refresh().priority());
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
        }
    }

    @Test
    void changePriorityOfAJobInAnotherStateOnlySetsTheField() {
        String q = queueName("change-prio-delayed");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("d", Map.of(), IN_AN_HOUR);
            Double score = redis().zscore(key(q, "delayed"), job.id());

            job.changePriority(7);

            assertEquals("7", redis().hget(key(q, job.id()), "priority"));
            assertEquals(score, redis().zscore(key(q, "delayed"), job.id()));
            assertEquals(0, redis().zcard(key(q, "prioritized")));
            // the new priority applies once it is ready
            job.promote();
            assertTrue(redis().zscore(key(q, "prioritized"), job.id()) >= 7 * SLOT);
        }
    }

    @Test
    void changePriorityValidatesItsRange() {
        String q = queueName("change-prio-refused");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of());
            assertEquals("priority", assertThrows(ValidationException.class, () -> job.changePriority(-1)).field());
            assertEquals("priority", assertThrows(ValidationException.class,
                    () -> job.changePriority(JobOptions.MAX_PRIORITY + 1)).field());
            assertEquals("0", redis().hget(key(q, job.id()), "priority"));
            job.changePriority(JobOptions.MAX_PRIORITY);
            assertEquals((double) JobOptions.MAX_PRIORITY * SLOT + 1, redis().zscore(key(q, "prioritized"), job.id()));

            assertTrue(job.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, () -> job.changePriority(1)).reason());
        }
    }
}
