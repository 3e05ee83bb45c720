package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job control across the two sides: a job added by the real bullmq, cancelled while a bull4j worker runs it, reads in
 * bullmq as failed with the cancellation's reason; bull4j's per-job {@code timeout} option (bull4j only) is stored in
 * the job's opts, where bullmq keeps it and ignores it (bullmq reads it, and a bullmq worker runs the job as any
 * other).
 */
class InteropJobControlTest {
    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void aCancelledJobReadsInBullmqAsFailedWithTheReason() throws Exception {
        String q = queueName("interop-cancel");
        node("add", q, List.of(job("export", Map.of(), Map.of("jobId", "c1", "attempts", 1))));
        CountDownLatch started = new CountDownLatch(1);
        try (Worker worker = new Worker(q, job -> {
            started.countDown();
            new CountDownLatch(1).await();
            return null;
        }, workerOptions().build())) {
            assertTrue(started.await(20, TimeUnit.SECONDS));
            assertTrue(worker.cancelJob("c1", "cancelled by the operator"));
            eventually(WAIT, () -> redis().zscore(key(q, "failed"), "c1") != null, "c1 failed");
        }
        JsonNode read = node("getJobs", q, List.of("c1")).get(0);
        assertEquals("failed", read.get("state").asText());
        assertEquals("cancelled by the operator", read.get("failedReason").asText());
        assertEquals(1, read.get("attemptsMade").asInt());
    }

    @Test
    void aDeadLetterLeavesTheFailedJobAsBullmqReadsItAndIsAPlainJobOfItsQueue() throws Exception {
        String q = queueName("interop-dlq");
        String dead = q + "-dead";
        node("add", q, List.of(job("charge", Map.of("order", 42), Map.of("jobId", "d1", "attempts", 1))));
        try (Worker worker = new Worker(q, job -> {
            throw new IllegalStateException("card declined");
        }, workerOptions().deadLetterQueue(dead).build())) {
            eventually(WAIT, () -> redis().zscore(key(q, "failed"), "d1") != null, "d1 failed");
        }
        JsonNode failed = node("getJobs", q, List.of("d1")).get(0);
        assertEquals("failed", failed.get("state").asText());
        assertEquals("card declined", failed.get("failedReason").asText());
        assertEquals(1, failed.get("attemptsMade").asInt());
        assertEquals(tree(Map.of("order", 42)), failed.get("data"));

        String letterId = redis().lrange(key(dead, "wait"), 0, -1).get(0);
        JsonNode letter = node("getJobs", dead, List.of(letterId)).get(0);
        assertEquals("waiting", letter.get("state").asText());
        assertEquals("charge", letter.get("name").asText());
        assertEquals(tree(Map.of("order", 42)), letter.get("data"));
        JsonNode record = parse(redis().hget(key(dead, letterId), "deadLetter"));
        assertEquals(q, record.get("queue").asText());
        assertEquals("d1", record.get("jobId").asText());
        // a bullmq worker on the dead-letter queue runs the letter as any job
        List<JsonNode> done = work(dead, Map.of("count", 1, "echo", true));
        assertEquals("completed", done.get(0).get("event").asText());
        assertEquals(tree(Map.of("order", 42)), done.get(0).get("returnvalue"));
    }

    @Test
    void bullmqKeepsTheTimeoutOptionAndRunsTheJob() {
        String q = queueName("interop-timeout");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("timed", Map.of("returns", "ran in node"), JobOptions.builder().jobId("t1").attempts(2)
                    .timeout(Duration.ofMillis(1500)).build());
        }
        JsonNode read = node("getJobs", q, List.of("t1")).get(0);
        assertEquals(1500, read.get("opts").get("timeout").asLong());
        assertEquals(2, read.get("opts").get("attempts").asInt());
        assertEquals("waiting", read.get("state").asText());

        List<JsonNode> done = work(q, Map.of("count", 1));
        assertEquals("completed", done.get(0).get("event").asText());
        assertEquals("ran in node", done.get(0).get("returnvalue").asText());
        assertEquals(1500, done.get(0).get("opts").get("timeout").asLong(), "the worker's job still has it");
    }
}
