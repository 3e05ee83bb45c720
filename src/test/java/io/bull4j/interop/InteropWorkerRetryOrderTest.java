package io.bull4j.interop;

import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An immediate retry (no backoff) and a delayed job that fell due during the failed attempt: the retry first moves
 * the due job to wait, then re-queues the retried one, so the delayed job runs before the second attempt. With an
 * idle worker, D (delay 1 s) then A (2 attempts, the first outlasts D's delay and throws): A, D, A, and the same
 * events in the same order, whether bullmq's worker or bull4j's ran them.
 */
class InteropWorkerRetryOrderTest {
    /** Long enough that A is taken before D falls due, however slowly a loaded machine adds and fetches A. */
    private static final Duration D_DELAY = Duration.ofSeconds(1);
    /** How far past D's due time the first attempt of A (on bull4j) runs before it throws. */
    private static final long PAST_DUE_MS = 300;

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    private static final List<String> TRAIL = List.of("added:D", "delayed:D", "added:A", "waiting:A", "active:A",
            "waiting:D", "waiting:A", "active:D", "completed:D", "active:A", "completed:A", "drained");

    /** Adds D then A with the worker already blocked; returns the time A's first attempt may throw. */
    private static long addDThenA(String q, Queue queue) throws Exception {
        InteropKit.awaitBlockedWorker(q);
        String d = queue.add("D", Map.of(), JobOptions.builder().delay(D_DELAY).build()).id();
        long throwAt = dueAt(q, d) + PAST_DUE_MS;
        queue.add("A", Map.of(), JobOptions.builder().attempts(2).build());
        return throwAt;
    }

    /** The waiting events in stream order, with the state each came from. */
    private static List<String> waitingEvents(String q) {
        return stream(q).stream().filter(e -> e.get("event").equals("waiting"))
                .map(e -> redis().hget(key(q, e.get("jobId")), "name") + "<-" + e.get("prev")).toList();
    }

    private static final List<String> WAITING = List.of("A<-null", "D<-delayed", "A<-active");

    @Test
    void bullmqWorkerRunsTheDueDelayedJobBeforeTheRetry() throws Exception {
        String q = queueName("retry-order-n");
        try (Queue queue = new Queue(q, queueOptions())) {
            List<String> started;
            // A's first attempt outlasts D's delay: D falls due meanwhile
            try (NodeWorker node = startNodeWorker(q, obj("finals", 2, "opts", obj("drainDelay", 1),
                    "fail", obj("attempts", 1, "names", List.of("A"), "message", "first attempt"),
                    "hold", obj("name", "A", "attempts", 1, "ms", D_DELAY.toMillis() + 700)))) {
                addDThenA(q, queue);
                assertEquals(0, node.exit());
                started = node.seen().stream().filter(matches("start", null))
                        .map(l -> l.get("job").get("name").asText()).toList();
            }
            assertEquals(List.of("A", "D", "A"), started, "bullmq's order");
        }
        assertEquals(WAITING, waitingEvents(q));
        assertEquals(TRAIL, trail(q));
        assertReadersAgree(q);
    }

    @Test
    void bull4jWorkerRunsTheDueDelayedJobBeforeTheRetry() throws Exception {
        String q = queueName("retry-order-j");
        List<String> started = new CopyOnWriteArrayList<>();
        long[] throwAt = {Long.MAX_VALUE};
        try (Queue queue = new Queue(q, queueOptions())) {
            CountDownLatch done = new CountDownLatch(3);
            try (Worker worker = new Worker(q, (Job job) -> {
                started.add(job.name());
                done.countDown();
                if (job.name().equals("A") && job.attemptsMade() == 0) {
                    // the attempt outlasts D's delay: D falls due while A is active
                    eventually(() -> System.currentTimeMillis() >= throwAt[0], "the clock passes D's due time");
                    throw new IllegalStateException("first attempt");
                }
                return null;
            }, workerOptions().build())) {
                throwAt[0] = addDThenA(q, queue);
                eventually(() -> done.getCount() == 0 && redis().zcard(key(q, "completed")) == 2,
                        "A, D and A's retry ran and both completed");
            }
        }
        assertEquals(List.of("A", "D", "A"), started, "bull4j's order");
        assertEquals(WAITING, waitingEvents(q));
        assertEquals(TRAIL, trail(q));
        assertReadersAgree(q);
    }
}
