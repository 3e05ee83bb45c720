package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobException;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code waitUntilFinished} next to bullmq's {@code job.waitUntilFinished(queueEvents)}, with the job run by the
 * other side: a job removed on completion before the wait began is not found by either (bullmq: "Missing key for
 * job"), one removed during a bull4j wait is answered from the {@code completed} event a Node worker wrote, and a
 * kept job that bull4j completes during a Node wait gives Node the value bull4j reads back.
 */
class InteropWaitUntilFinishedTest {
    private static final Duration LONG = Duration.ofSeconds(20);

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void removedOnCompleteBeforeTheWaitIsNotFoundOnBothSides() throws Exception {
        String q = queueName("wuf-before");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of(), JobOptions.builder().removeOnComplete(true).build());
            try (NodeWorker node = startNodeWorker(q, obj("finals", 1, "returnvalue", "ok"))) {
                assertEquals(0, node.exit());
            }
            assertEquals(0, redis().exists(key(q, job.id())), "removed on completion by bullmq");

            JsonNode nodeWait = op(q, obj("op", "waitUntilFinished", "id", job.id()));
            assertTrue(nodeWait.path("error").asText().startsWith("Missing key for job"), nodeWait.toString());
            assertEquals(JobException.Reason.JOB_NOT_FOUND, assertThrows(JobException.class,
                    () -> job.waitUntilFinished(LONG)).reason());
        }
    }

    @Test
    void removedOnCompleteByANodeWorkerDuringTheWaitGivesTheEventsValue() throws Exception {
        String q = queueName("wuf-during");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of("in", 1), JobOptions.builder().removeOnComplete(true).build());
            CompletableFuture<Job> done = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    done.complete(job.waitUntilFinished(LONG));
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
            waiter.start();
            eventually(() -> Arrays.stream(waiter.getStackTrace()).anyMatch(f -> f.getMethodName().equals("waitFor")
                    && f.getClassName().equals("io.bull4j.JobFinishWaiter")), "the wait parked on the job's end");
            try (NodeWorker node = startNodeWorker(q, obj("finals", 1, "returnvalue", obj("out", 2)))) {
                Job finished = await(done);
                assertEquals(Map.of("out", 2), finished.returnValue(Map.class));
                assertEquals(Map.of("in", 1), finished.data());
                assertEquals(0, node.exit());
            }
            assertEquals(0, redis().exists(key(q, job.id())), "removed on completion by bullmq");
        }
    }

    @Test
    void aJobCompletedByBull4jDuringANodeWaitGivesNodeTheSameValue() throws Exception {
        String q = queueName("wuf-node-waits");
        String id = op(q, obj("op", "add", "name", "w", "data", obj("in", 1))).get("id").asText();
        CountDownLatch nodeWaiting = new CountDownLatch(1);
        try (Worker worker = new Worker(q, j -> {
            nodeWaiting.await();
            return Map.of("out", j.data(Map.class).get("in"));
        }, workerOptions().build()); Queue queue = new Queue(q, queueOptions())) {
            CompletableFuture<JsonNode> nodeWait = CompletableFuture.supplyAsync(
                    () -> op(q, obj("op", "waitUntilFinished", "id", id)));
            eventually(() -> redis().clientList().lines().anyMatch(l -> l.contains("cmd=xread")
                    && l.matches(".*flags=\\S*b.*")), "bullmq's QueueEvents reading");
            nodeWaiting.countDown();
            assertEquals(JSON.readTree("{\"returnvalue\":{\"out\":1}}"), await(nodeWait));
            assertEquals(Map.of("out", 1), queue.getJob(id).waitUntilFinished(LONG).returnValue(Map.class));
        }
    }
}
