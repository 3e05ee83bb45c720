package io.bull4j.interop;

import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Pausing the queue from one side while the other side's worker runs: the running job finishes, nothing more is
 * taken while paused (although the worker keeps polling: it promotes a due delayed job), and resuming from the
 * pausing side lets the worker take the jobs that queued up.
 */
class InteropWorkerPauseTest {
    private static final Duration SHORT_DELAY = Duration.ofMillis(300);

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** Paused as BullMQ pauses: meta.paused, no marker to wake workers. */
    private static void assertPaused(String q) {
        assertEquals("1", redis().hget(key(q, "meta"), "paused"));
        assertEquals(0, redis().exists(key(q, "marker")), "pausing deletes the marker");
    }

    /**
     * While paused, the worker's next poll promotes the due delayed job (bullmq's and bull4j's fetch both promote
     * before they check the pause): once it did, the worker has looked and taken nothing.
     */
    private static void awaitPollWhilePaused(String q, String waiting, String delayed) throws Exception {
        eventually(() -> redis().lrange(key(q, "wait"), 0, -1).contains(delayed),
                "a poll of the paused worker promoted the delayed job");
        assertEquals(Set.of(waiting, delayed), Set.copyOf(redis().lrange(key(q, "wait"), 0, -1)));
        assertEquals(0, redis().llen(key(q, "active")), "nothing taken while paused");
        assertTrue(events(q, "active", waiting).isEmpty());
        assertTrue(events(q, "active", delayed).isEmpty());
    }

    /**
     * What both readers see: the pause, the resume, and in between no drained (a job finishing in a paused queue
     * takes no next job, and bullmq writes no drained then), the same trail whichever side worked.
     */
    private static void assertPauseEvents(String q) throws Exception {
        assertReadersAgree(q);
        assertEquals(List.of("added:slow", "waiting:slow", "active:slow", "paused", "completed:slow",
                "added:delayed", "delayed:delayed", "added:waiting", "waiting:waiting", "waiting:delayed", "resumed",
                "active:waiting", "completed:waiting", "active:delayed", "completed:delayed", "drained"), trail(q));
    }

    @Test
    void nodePausesAndResumesWhileBull4jWorkerRuns() throws Exception {
        String q = queueName("pause-n2j");
        Map<String, CompletableFuture<Object>> completed = new ConcurrentHashMap<>();
        CompletableFuture<String> slowStarted = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        WorkerListener listener = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                completion(completed, job.id()).complete(result);
            }
        };
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.name().equals("slow")) {
                     slowStarted.complete(job.id());
                     release.await();
                 }
                 return job.name();
             }, workerOptions().build(), listener)) {
            // released in finally too, before the worker closes: a failed assertion must fail the test, not leave
            // close() waiting for the held job
            try {
                String slow = queue.add("slow", Map.of()).id();
                assertEquals(slow, await(slowStarted));

                op(q, obj("op", "pause"));
                assertPaused(q);
                assertTrue(queue.isPaused(), "bull4j sees bullmq's pause");
                release.countDown();
                assertEquals("slow", await(completion(completed, slow)), "the running job finishes");
                String delayed = queue.add("delayed", Map.of(), JobOptions.builder().delay(SHORT_DELAY).build()).id();
                String waiting = queue.add("waiting", Map.of()).id();
                awaitPollWhilePaused(q, waiting, delayed);

                op(q, obj("op", "resume"));
                assertFalse(queue.isPaused());
                assertEquals("waiting", await(completion(completed, waiting)));
                assertEquals("delayed", await(completion(completed, delayed)));
                assertNull(redis().hget(key(q, "meta"), "paused"));
                assertEquals(JobState.COMPLETED, queue.getJob(waiting).getState());
            } finally {
                release.countDown();
            }
        }
        assertPauseEvents(q);
    }

    private static CompletableFuture<Object> completion(Map<String, CompletableFuture<Object>> all, String id) {
        return all.computeIfAbsent(id, k -> new CompletableFuture<>());
    }

    @Test
    void bull4jPausesAndResumesWhileNodeWorkerRuns() throws Exception {
        String q = queueName("pause-j2n");
        try (Queue queue = new Queue(q, queueOptions());
             NodeWorker node = startNodeWorker(q, obj("finals", 3, "returnvalue", "node ok",
                     "hold", obj("name", "slow", "paused", true), "opts", obj("drainDelay", 1)))) {
            String slow = queue.add("slow", Map.of()).id();
            node.await("start", slow);

            queue.pause();
            assertPaused(q);
            assertTrue(op(q, obj("op", "isPaused")).asBoolean(), "bullmq sees bull4j's pause");
            node.await("completed", slow); // it held the job until the pause
            String delayed = queue.add("delayed", Map.of(), JobOptions.builder().delay(SHORT_DELAY).build()).id();
            String waiting = queue.add("waiting", Map.of()).id();
            awaitPollWhilePaused(q, waiting, delayed);
            assertTrue(node.seen().stream().noneMatch(matches("start", waiting)));

            queue.resume();
            assertEquals("node ok", node.await("completed", waiting).get("result").asText());
            node.await("completed", delayed);
            assertEquals(0, node.exit());
            assertNull(redis().hget(key(q, "meta"), "paused"));
        }
        assertPauseEvents(q);
    }
}
