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
 * A worker SIGKILLed mid-job on one side: once its lock expires, the other side's stalled check moves the job
 * back to wait (stalledCounter 1, a {@code stalled} event) and the job is completed once, by the survivor.
 */
class InteropWorkerStalledTest {
    private static final Map<String, Object> FAST_LOCKS = obj("lockDuration", 2000, "stalledInterval", 1000);

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** Redis after the recovery: one stall, two starts, one finished attempt, completed once. */
    private static void assertRecoveredOnce(String q, String id, String returnValueJson) throws Exception {
        Map<String, String> h = hash(q, id);
        assertEquals("1", h.get("stc"), "stalledCounter");
        assertEquals("2", h.get("ats"), "started by the dead worker and by the survivor");
        assertEquals("1", h.get("atm"), "one attempt finished");
        assertNull(h.get("defa"), "one stall is within maxStalledCount");
        assertEquals(returnValueJson, h.get("returnvalue"));
        assertNotNull(redis().zscore(key(q, "completed"), id));
        assertEquals(0, redis().llen(key(q, "active")));
        assertEquals(0, redis().llen(key(q, "wait")));
        assertEquals(1, events(q, "completed", id).size(), "completed exactly once");
        assertEquals(1, events(q, "stalled", id).size());

        List<QueueEvent> events = assertReadersAgree(q);
        assertEquals(List.of("added:work", "waiting:work", "active:work", "waiting:work", "stalled:work", "active:work",
                "completed:work", "drained"), trail(q), "the same events whichever side recovered the job");
        assertEquals(JobState.ACTIVE, ofType(events, WAITING, id).get(1).prev(), "requeued from active");
    }

    @Test
    void nodeWorkerKilledMidJobIsRecoveredByBull4j() throws Exception {
        String q = queueName("stall-n2j");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("work", Map.of("n", 1)).id();
            String nodeToken;
            try (NodeWorker hang = startNodeWorker(q, obj("hang", true, "opts", FAST_LOCKS))) {
                hang.await("start", id);
                nodeToken = redis().get(key(q, id + ":lock"));
                assertNotNull(nodeToken, "the Node worker holds the lock");
                hang.kill();
            }

            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<String> token = new CompletableFuture<>();
            CompletableFuture<String> stalled = new CompletableFuture<>();
            CompletableFuture<Job> completed = new CompletableFuture<>();
            WorkerListener listener = new WorkerListener() {
                @Override
                public void onStalled(String jobId) {
                    stalled.complete(jobId);
                }

                @Override
                public void onCompleted(Job job, Object result) {
                    completed.complete(job);
                }
            };
            try (Worker worker = new Worker(q, job -> {
                runs.incrementAndGet();
                token.complete(job.token());
                return "recovered";
            }, workerOptions().lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofSeconds(1)).build(),
                    listener)) {
                assertEquals(id, await(stalled));
                assertEquals(1, await(completed).stalledCounter(), "the running job shows its stall");
            }
            assertEquals(1, runs.get());
            assertNotEquals(nodeToken, await(token));
            assertRecoveredOnce(q, id, "\"recovered\"");

            JsonNode theirs = op(q, obj("op", "getJob", "id", id));
            assertEquals("completed", theirs.get("state").asText());
            assertEquals(1, theirs.get("stalledCounter").asInt());
            assertEquals(2, theirs.get("attemptsStarted").asInt());
            assertSameJob(theirs, queue.getJob(id));
        }
    }

    @Test
    void bull4jWorkerKilledMidJobIsRecoveredByNode() throws Exception {
        String q = queueName("stall-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = op(q, obj("op", "add", "name", "work", "data", obj("n", 2))).get("id").asText();
            String javaToken;
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), q, "2000", "1000")) {
                String started = child.awaitLine(l -> l.startsWith("STARTED "), 60);
                javaToken = started.split(" ")[2];
                assertEquals("STARTED " + id + " " + javaToken, started);
                assertEquals(javaToken, redis().get(key(q, id + ":lock")), "the child JVM holds the lock");
                child.kill();
            }

            List<JsonNode> lines = nodeWorker(q, obj("finals", 1, "returnvalue", "node recovered", "opts", FAST_LOCKS));
            assertEquals("active", line(lines, "stalled", id).get("prev").asText());
            assertEquals(1, lines.stream().filter(matches("start", null)).count(), "one run");
            JsonNode done = line(lines, "completed", id);
            assertEquals(1, done.at("/job/stalledCounter").asInt());
            assertEquals(2, done.at("/job/attemptsStarted").asInt());
            assertEquals(1, done.at("/job/attemptsMade").asInt());
            assertRecoveredOnce(q, id, "\"node recovered\"");

            Job job = queue.getJob(id);
            assertEquals(JobState.COMPLETED, job.getState());
            assertEquals(1, job.stalledCounter());
            assertEquals("node recovered", job.returnValue(String.class));
            assertSameJob(op(q, obj("op", "getJob", "id", id)), job);
        }
    }
}
