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
            assertEquals(Map.of("v", 1), job.data(), "the snapshot does not change");

            assertTrue(job.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, () -> job.updateData(Map.of())).reason());
        }
    }
}
