package io.bull4j.interop;

import io.bull4j.support.RedisTestServer;
import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueEvent;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.ChildJvm;
import io.bull4j.support.HangingWorkerMain;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A job that stalled more than maxStalledCount: one side's stalled check marks it (the {@code defa} field) and
 * the other side's worker fails it when it takes it, without running its processor. The queue is paused while
 * the marking side checks, so that it cannot take the job back itself.
 */
class InteropWorkerStalledLimitTest {
    private static final String REASON = "job stalled more than allowable limit";

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** Marked and requeued: the job waits (paused) with the deferred failure. */
    private static void assertMarked(String q, String id) {
        Map<String, String> h = hash(q, id);
        assertEquals(REASON, h.get("defa"));
        assertEquals("1", h.get("stc"));
        assertEquals(List.of(id), redis().lrange(key(q, "wait"), 0, -1));
    }

    /** Failed for good at its second start, no attempt of the processor. */
    private static void assertFailedForStalling(String q, String id) throws Exception {
        Map<String, String> h = hash(q, id);
        assertNull(h.get("defa"), "failing clears the mark");
        assertEquals(REASON, h.get("failedReason"));
        assertEquals("1", h.get("atm"));
        assertEquals("2", h.get("ats"));
        assertNotNull(redis().zscore(key(q, "failed"), id));
        List<QueueEvent> events = assertReadersAgree(q);
        assertEquals(REASON, ofType(events, FAILED, id).get(0).failedReason());
        assertEquals(1, ofType(events, RETRIES_EXHAUSTED, id).get(0).attemptsMade());
        assertEquals(1, ofType(events, STALLED, id).size());
        assertEquals(List.of("added:work", "waiting:work", "active:work", "paused", "waiting:work", "stalled:work",
                "resumed", "active:work", "failed:work", "retries-exhausted:work", "drained"), trail(q),
                "the same events whichever side marked and failed the job");
    }

    @Test
    void nodeMarksTheJobAndBull4jFailsIt() throws Exception {
        String q = queueName("stall-limit-n2j");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("work", Map.of()).id();
            try (NodeWorker hang = startNodeWorker(q, obj("hang", true,
                    "opts", obj("lockDuration", 2000, "stalledInterval", 1000)))) {
                hang.await("start", id);
                hang.kill();
            }
            queue.pause();
            List<JsonNode> lines = nodeWorker(q, obj("stalls", 1,
                    "opts", obj("maxStalledCount", 0, "lockDuration", 2000, "stalledInterval", 1000)));
            line(lines, "stalled", id);
            assertMarked(q, id);
            assertEquals(REASON, queue.getJob(id).deferredFailure(), "bull4j reads bullmq's mark");

            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<Job> failed = new CompletableFuture<>();
            try (Worker worker = new Worker(q, job -> runs.incrementAndGet(), workerOptions().build(),
                    new WorkerListener() {
                        @Override
                        public void onFailed(Job job, Throwable error) {
                            failed.complete(job);
                        }
                    })) {
                queue.resume();
                assertEquals(REASON, await(failed).failedReason());
            }
            assertEquals(0, runs.get(), "the processor never ran");
            assertFailedForStalling(q, id);
            JsonNode theirs = op(q, obj("op", "getJob", "id", id));
            assertEquals("failed", theirs.get("state").asText());
            assertTrue(theirs.get("deferredFailure").isNull());
            assertSameJob(theirs, queue.getJob(id));
        }
    }

    @Test
    void bull4jMarksTheJobAndNodeFailsIt() throws Exception {
        String q = queueName("stall-limit-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = op(q, obj("op", "add", "name", "work")).get("id").asText();
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), q, "2000", "1000")) {
                child.awaitLine(l -> l.startsWith("STARTED " + id + " "), 60);
                child.kill();
            }
            op(q, obj("op", "pause"));
            CompletableFuture<String> stalled = new CompletableFuture<>();
            try (Worker checker = new Worker(q, job -> null, workerOptions().maxStalledCount(0)
                    .lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofSeconds(1)).build(),
                    new WorkerListener() {
                        @Override
                        public void onStalled(String jobId) {
                            stalled.complete(jobId);
                        }
                    })) {
                assertEquals(id, await(stalled));
            }
            assertMarked(q, id);
            assertEquals(REASON, op(q, obj("op", "getJob", "id", id)).get("deferredFailure").asText(),
                    "bullmq reads bull4j's mark");

            try (NodeWorker node = startNodeWorker(q, obj("finals", 1))) {
                op(q, obj("op", "resume"));
                JsonNode failed = node.await("failed", id);
                assertEquals(REASON, failed.get("err").asText());
                assertTrue(failed.get("final").asBoolean());
                assertEquals(0, node.exit());
                assertTrue(node.seen().stream().noneMatch(matches("start", id)), "the processor never ran");
            }
            assertFailedForStalling(q, id);
            Job job = queue.getJob(id);
            assertEquals(JobState.FAILED, job.getState());
            assertNull(job.deferredFailure());
            assertSameJob(op(q, obj("op", "getJob", "id", id)), job);
        }
    }
}
