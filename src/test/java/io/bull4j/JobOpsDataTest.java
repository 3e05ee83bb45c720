package io.bull4j;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.bull4j.JobOpsFixtures.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job.updateProgress, Job.log and Job.updateData: the stored fields, the progress events, the logs list. */
class JobOpsDataTest {
    record Step(String step, int pct) {
    }

    @Test
    void updateProgressStoresJsonAndEmitsIt() {
        String q = queueName("progress");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("p", Map.of());
            assertEquals(0, job.progress());

            job.updateProgress(42);
            assertEquals("42", redis().hget(key(q, job.id()), "progress"));
            assertEquals(Map.of("event", "progress", "jobId", job.id(), "data", "42"), lastEvent(q, job.id()));
            assertEquals(42, job.refresh().progress());

            job.updateProgress(new Step("upload", 50));
            String json = "{\"step\":\"upload\",\"pct\":50}";
            assertEquals(json, redis().hget(key(q, job.id()), "progress"));
            assertEquals(Map.of("event", "progress", "jobId", job.id(), "data", json), lastEvent(q, job.id()));
            assertEquals(Map.of("step", "upload", "pct", 50), job.refresh().progress());
        }
    }

    /**
     * What this Job object wrote it reads back, as BullMQ's job keeps this.data and this.progress: before, a
     * processor that updated its data and returned job.data() returned the old data. A progress stored as JSON
     * null reads as 0, as BullMQ's progress ?? 0.
     */
    @Test
    void aJobReadsBackTheDataAndProgressItWrote() {
        String q = queueName("progress-own");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("p", Map.of("old", 1));
            job.updateData(Map.of("new", 2));
            assertEquals(Map.of("new", 2), job.data());
            assertEquals("{\"new\":2}", job.dataJson());
            job.updateProgress(Map.of("pct", 5));
            assertEquals(Map.of("pct", 5), job.progress());
            job.updateProgress(null);
            assertEquals("null", redis().hget(key(q, job.id()), "progress"));
            assertEquals(0, job.progress());
            assertEquals(0, job.refresh().progress());
        }
    }

    /** Job.clearLogs keeps the newest lines, or deletes the log (0), as BullMQ's job.clearLogs. */
    @Test
    void clearLogsKeepsTheNewestLinesOrDeletesTheLog() {
        String q = queueName("clear-logs");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("l", Map.of());
            job.log("a");
            job.log("b");
            job.log("c");
            assertEquals(1, job.clearLogs(1));
            assertEquals(List.of("c"), redis().lrange(key(q, job.id()) + ":logs", 0, -1));
            assertEquals(0, job.clearLogs(0));
            assertEquals(0, redis().exists(key(q, job.id()) + ":logs"));
            ValidationException e = assertThrows(ValidationException.class, () -> job.clearLogs(-1));
            assertEquals("keepLogs", e.field());
        }
    }

    @Test
    void updateProgressOfAMissingJobFailsWithoutAnEvent() {
        String q = queueName("progress-missing");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("p", Map.of());
            assertTrue(job.remove());
            int before = events(q, job.id()).size();
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, () -> job.updateProgress(1)).reason());
            assertEquals(before, events(q, job.id()).size());
            assertEquals(0, redis().exists(key(q, job.id())), "not recreated");
        }
    }

    @Test
    void logAppendsAndKeepsTheNewestLines() {
        String q = queueName("log");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job kept = queue.add("k", Map.of(), JobOptions.builder().keepLogs(2).build());
            assertEquals(1, kept.log("one"));
            assertEquals(2, kept.log("two"));
            assertEquals(2, kept.log("three"));
            assertEquals(List.of("two", "three"), redis().lrange(key(q, kept.id() + ":logs"), 0, -1));

            Job all = queue.add("a", Map.of());
            for (int i = 1; i <= 5; i++) {
                assertEquals(i, all.log("line " + i));
            }
            assertEquals(5, redis().llen(key(q, all.id() + ":logs")));

            assertEquals("line", assertThrows(ValidationException.class, () -> all.log(null)).field());
            assertTrue(all.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, () -> all.log("late")).reason());
            assertEquals(0, redis().exists(key(q, all.id() + ":logs")), "no orphan log list");
        }
    }

    @Test
    void updateDataReplacesTheData() {
        String q = queueName("data");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("d", Map.of("v", 1));
            job.updateData(new Step("resize", 10));
            assertEquals("{\"step\":\"resize\",\"pct\":10}", redis().hget(key(q, job.id()), "data"));
            assertEquals(new Step("resize", 10), job.refresh().data(Step.class));
            assertEquals(new Step("resize", 10), job.data(Step.class), "this object reads what it wrote, as BullMQ");

            assertTrue(job.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, () -> job.updateData(Map.of())).reason());
        }
    }
}
