package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job operations by the real bullmq on bull4j's jobs (the reverse of {@code JobOpsInteropTest}): bull4j then sees
 * the change and its worker runs the job.
 */
class InteropJobOpsFromNodeTest {

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void aBull4jJobPromotedAndReprioritizedByBullmqIsSeenAndRunByBull4j() throws Exception {
        String q = queueName("ops-promote");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("j", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).priority(2).build())
                    .id();
            ops(q, obj("op", "changePriority", "id", id, "priority", 5), obj("op", "promote", "id", id));
            Job seen = queue.getJob(id);
            assertEquals(JobState.PRIORITIZED, seen.getState());
            assertEquals(5, seen.priority());
            assertEquals(Duration.ZERO, seen.delay());
            runJavaWorker(q, 1, job -> "ran");
            assertEquals(JobState.COMPLETED, queue.getJob(id).getState());
            assertEquals("ran", queue.getJob(id).returnValue(String.class));
        }
    }

    @Test
    void aBull4jJobRescheduledByBullmqIsRunByBull4jWhenDue() throws Exception {
        String q = queueName("ops-delay");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("j", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build()).id();
            long before = System.currentTimeMillis();
            op(q, obj("op", "changeDelay", "id", id, "delay", 200));
            assertEquals(JobState.DELAYED, queue.getJob(id).getState());
            long due = dueAt(q, id);
            assertTrue(due >= before + 200 && due < before + 60_000, "due in 200 ms, not in an hour: " + due);
            runJavaWorker(q, 1, job -> "ran");
            assertEquals(JobState.COMPLETED, queue.getJob(id).getState());
        }
    }

    @Test
    void aJobFailedByBull4jAndRetriedByBullmqIsRunAgainByBull4j() throws Exception {
        String q = queueName("ops-retry");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("j", Map.of()).id();
            runJavaWorker(q, 1, job -> {
                throw new IllegalStateException("boom");
            });
            assertEquals(JobState.FAILED, queue.getJob(id).getState());
            op(q, obj("op", "retry", "id", id));
            Job waiting = queue.getJob(id);
            assertEquals(JobState.WAITING, waiting.getState());
            JsonNode theirs = op(q, obj("op", "getJob", "id", id));
            assertEquals("waiting", theirs.get("state").asText());
            runJavaWorker(q, 1, job -> "second");
            Job done = queue.getJob(id);
            assertEquals(JobState.COMPLETED, done.getState());
            assertEquals(2, done.attemptsMade());
            assertEquals("second", done.returnValue(String.class));
        }
    }
}
