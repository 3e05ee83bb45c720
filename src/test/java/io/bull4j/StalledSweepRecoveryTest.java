package io.bull4j;

import io.bull4j.support.ChildJvm;
import io.bull4j.support.HangingWorkerMain;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.SetArgs;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 9's recovery target: a dead worker's job goes back to wait about as soon as its lock expires, not up to
 * two stalled intervals later. The stalled interval here is four times the lock, so that the regular passes alone
 * (the code before the sweep) miss the bound by seconds, while the bound still leaves a loaded CI machine room.
 */
class StalledSweepRecoveryTest {
    private static final long LOCK_MS = 2_000;
    private static final long STALLED_MS = 8_000;
    /** The target: lockDuration + 2 s. Before the sweep recovery takes at least a stalled interval after the mark. */
    private static final long BOUND_MS = LOCK_MS + 2_000;

    @Test
    void jobOfWorkerKilledRightAfterThePassMarkedItIsRecoveredSoonAfterItsLockExpires() throws Exception {
        String q = queueName("sweep-kill");
        String base = "bull:" + q + ":";
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("work", Map.of());
            CompletableFuture<Long> stalledAt = new CompletableFuture<>();
            CompletableFuture<Object> completed = new CompletableFuture<>();
            AtomicInteger runs = new AtomicInteger();
            Worker worker = null;
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().uri(), q,
                    Long.toString(LOCK_MS), Long.toString(STALLED_MS))) {
                child.awaitLine(l -> l.startsWith("STARTED " + job.id() + " "), 60);
                worker = new Worker(q, j -> {
                    runs.incrementAndGet();
                    return "recovered";
                }, workerOptions().lockDuration(Duration.ofMillis(LOCK_MS))
                        .stalledInterval(Duration.ofMillis(STALLED_MS)).build(), new WorkerListener() {
                    @Override
                    public void onStalled(String jobId) {
                        stalledAt.complete(System.nanoTime());
                    }

                    @Override
                    public void onCompleted(Job j, Object result) {
                        completed.complete(result);
                    }
                });
                // a regular pass (the child's or the worker's) marks the job; kill the child right after
                eventually(Duration.ofSeconds(3 * STALLED_MS / 1000), () -> redis().sismember(base + "stalled", job.id()),
                        "the job marked by a stalled pass");
                child.kill();
            }
            long killedAt = System.nanoTime();
            // a renewal that slipped in between the mark and the kill unmarks the job: then count from the next mark
            long from = killedAt;
            while (!stalledAt.isDone() && !redis().sismember(base + "stalled", job.id())) {
                assertTrue(System.nanoTime() - killedAt < Duration.ofMillis(3 * STALLED_MS).toNanos(),
                        "the job is marked again by a later pass");
                Thread.onSpinWait();
                from = System.nanoTime();
            }
            try {
                long recoveredAt = stalledAt.get(3 * STALLED_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
                long tookMs = Duration.ofNanos(recoveredAt - from).toMillis();
                assertTrue(tookMs <= BOUND_MS, "recovered " + tookMs + " ms after the kill (and mark); bound "
                        + BOUND_MS + " ms (lockDuration + 2 s)");
                assertEquals("recovered", await(completed));
            } finally {
                worker.close();
            }
            assertEquals(1, runs.get());
            assertEquals("1", redis().hget(base + job.id(), "stc"));
            assertNotNull(redis().zscore(base + "completed", job.id()));
        }
    }

    /** The dead worker held the stalled-check turn: the live worker runs the pass as soon as the key expires. */
    @Test
    void passIsRunAsSoonAsTheDeadWorkersStalledCheckTurnExpires() throws Exception {
        String q = queueName("sweep-turn");
        String base = "bull:" + q + ":";
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("work", Map.of());
            // a worker took the job, ran a pass (stalled-check set for its interval) and died; nothing is marked yet
            QueueContext ctx = queue.context();
            ctx.await(io.bull4j.internal.script.MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "dead:1",
                    LOCK_MS, null), "moveToActive");
            redis().set(base + "stalled-check", "0", SetArgs.Builder.px(1_500));
            CompletableFuture<String> stalled = new CompletableFuture<>();
            // the worker's own pass interval is far beyond the wait below: only the sweep can recover the job in time
            Worker worker = new Worker(q, j -> "recovered", workerOptions().lockDuration(Duration.ofMillis(LOCK_MS))
                    .stalledInterval(Duration.ofMinutes(2)).build(), new WorkerListener() {
                @Override
                public void onStalled(String jobId) {
                    stalled.complete(jobId);
                }
            });
            try {
                assertEquals(job.id(), stalled.get(15, java.util.concurrent.TimeUnit.SECONDS));
                eventually(Duration.ofSeconds(15), () -> redis().zscore(base + "completed", job.id()) != null,
                        "completed after recovery");
            } finally {
                worker.close();
            }
            assertTrue(redis().pttl(base + "stalled-check") > 60_000, "the pass took the turn with its own interval");
        }
    }
}
