package io.bull4j.interop;

import io.bull4j.Job;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The {@code drained} event as bullmq writes it: a job that fails for good while the queue is paused writes none
 * (the worker asked for a next job and was told the queue is paused), a job that completes in a running queue
 * with nothing left writes one. The same events stream whichever side works and whichever pauses.
 */
class InteropWorkerDrainedTest {
    private static final List<String> TRAIL = List.of("added:bad", "waiting:bad", "active:bad", "paused",
            "failed:bad", "retries-exhausted:bad", "resumed", "added:ok", "waiting:ok", "active:ok", "completed:ok",
            "drained");

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void bull4jWorkerFailsAJobWhileNodePausedTheQueue() throws Exception {
        String q = queueName("drained-n2j");
        CompletableFuture<String> badStarted = new CompletableFuture<>();
        CompletableFuture<Job> failed = new CompletableFuture<>();
        CompletableFuture<Job> completed = new CompletableFuture<>();
        CountDownLatch paused = new CountDownLatch(1);
        WorkerListener outcomes = new WorkerListener() {
            @Override
            public void onFailed(Job job, Throwable error) {
                failed.complete(job);
            }

            @Override
            public void onCompleted(Job job, Object result) {
                completed.complete(job);
            }
        };
        try (Worker worker = new Worker(q, job -> {
            if (job.name().equals("bad")) {
                badStarted.complete(job.id());
                paused.await();
                throw new IllegalStateException("bad");
            }
            return "ok";
        }, workerOptions().build(), outcomes)) {
            String bad = op(q, obj("op", "add", "name", "bad")).get("id").asText();
            assertEquals(bad, await(badStarted));
            op(q, obj("op", "pause"));
            paused.countDown();
            assertEquals("bad", await(failed).failedReason());
            op(q, obj("op", "resume"));
            String ok = op(q, obj("op", "add", "name", "ok")).get("id").asText();
            assertEquals(ok, await(completed).id());
        }
        assertReadersAgree(q);
        assertEquals(TRAIL, trail(q));
    }

    @Test
    void nodeWorkerFailsAJobWhileBull4jPausedTheQueue() throws Exception {
        String q = queueName("drained-j2n");
        try (Queue queue = new Queue(q, queueOptions());
             NodeWorker node = startNodeWorker(q, obj("finals", 2, "returnvalue", "ok",
                     "hold", obj("name", "bad", "paused", true), "fail", obj("names", List.of("bad"), "message", "bad")))) {
            String bad = queue.add("bad", Map.of()).id();
            node.await("start", bad);
            queue.pause();
            assertTrue(node.await("failed", bad).get("final").asBoolean());
            queue.resume();
            String ok = queue.add("ok", Map.of()).id();
            node.await("completed", ok);
            assertEquals(0, node.exit());
        }
        assertReadersAgree(q);
        assertEquals(TRAIL, trail(q));
    }
}
