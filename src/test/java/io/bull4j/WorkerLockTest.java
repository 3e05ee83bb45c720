package io.bull4j;

import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.Locks;
import io.bull4j.internal.script.MoveToActive;
import io.bull4j.internal.script.MoveToFinished;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job locks: held with the job's token while it runs, renewed, checked on finish, released after. */
class WorkerLockTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void lockHoldsTheTokenWhileRunningAndIsReleasedAfter() throws Exception {
        String q = queueName("lock");
        CompletableFuture<String> running = new CompletableFuture<>();
        CountDownLatch finish = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            Worker worker = new Worker(q, j -> {
                running.complete(j.token());
                return finish.await(10, TimeUnit.SECONDS);
            }, workerOptions().lockDuration(Duration.ofSeconds(20)).build());
            try {
                String token = await(running);
                assertTrue(token.matches("[0-9a-f-]{36}:\\d+"), "token " + token);
                assertEquals(token, redis().get(key(q, job.id() + ":lock")));
                long pttl = redis().pttl(key(q, job.id() + ":lock"));
                assertTrue(pttl > 15_000 && pttl <= 20_000, "PTTL " + pttl);
                finish.countDown();
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
            } finally {
                finish.countDown();
                worker.close();
            }
            assertEquals(0, redis().exists(key(q, job.id() + ":lock")));
            assertFalse(redis().sismember(key(q, "stalled"), job.id()));
        }
    }

    @Test
    void lockIsRenewedForAJobThatOutlivesIt() throws Exception {
        String q = queueName("renew");
        CompletableFuture<String> lockAtEnd = new CompletableFuture<>();
        CountDownLatch never = new CountDownLatch(1);
        Recorder rec = new Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            Worker worker = new Worker(q, j -> {
                // runs 5 s under a 2 s lock, while stalled checks run every 0.5 s (a 2 s lock leaves a renewal
                // a second of slack on a loaded machine)
                assertFalse(never.await(5, TimeUnit.SECONDS));
                lockAtEnd.complete(redis().get(key(q, j.id() + ":lock")) + "|" + j.token());
                return "done";
            }, workerOptions().lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofMillis(500)).build(), rec);
            try {
                String[] seen = await(lockAtEnd).split("\\|");
                assertEquals(seen[1], seen[0], "still our lock after 5 s");
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
            } finally {
                worker.close();
            }
            Map<String, String> h = hash(q, job.id());
            assertNull(h.get("stc"), "never stalled");
            assertEquals("1", h.get("ats"));
            assertEquals("\"done\"", h.get("returnvalue"));
            assertTrue(events(q, "stalled", job.id()).isEmpty());
            assertEquals(0, rec.count("stalled"));
            assertTrue(rec.errors.isEmpty(), "no lost lock: " + rec.errors);
        }
    }

    @Test
    void finishWithAStaleTokenIsRefusedAndTheStateMovesOnce() throws Exception {
        String q = queueName("stale");
        try (Queue queue = new Queue(q, queueOptions())) {
            QueueContext ctx = queue.context();
            Job job = queue.add("j", Map.of());
            FetchedJob f = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "owner:1", 30_000, null),
                    "moveToActive");
            assertEquals(job.id(), f.id());

            JobException e = assertThrows(JobException.class, () -> finish(ctx, job.id(), "thief:1"));
            assertEquals(JobException.Reason.LOCK_MISMATCH, e.reason());
            assertEquals(job.id(), e.jobId());
            assertEquals(q, e.queueName());
            assertEquals("owner:1", redis().get(key(q, job.id() + ":lock")), "the owner's lock is untouched");
            assertEquals(1, redis().llen(key(q, "active")));

            finish(ctx, job.id(), "owner:1");
            JobException again = assertThrows(JobException.class, () -> finish(ctx, job.id(), "owner:1"));
            assertEquals(JobException.Reason.LOCK_MISSING, again.reason());

            assertEquals(1, redis().zcard(key(q, "completed")));
            assertEquals(0, redis().llen(key(q, "active")));
            assertEquals(1, events(q, "completed", job.id()).size(), "moved once");
            assertEquals("1", hash(q, job.id()).get("atm"));
            assertEquals(0, redis().exists(key(q, job.id() + ":lock")));
        }
    }

    @Test
    void workerWhoseLockWasTakenDoesNotComplete() throws Exception {
        String q = queueName("stolen");
        Recorder rec = new Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            Worker worker = new Worker(q, j -> {
                redis().set(key(q, j.id() + ":lock"), "another-worker:1");
                return "mine";
            }, workerOptions().build(), rec);
            try {
                eventually(WAIT, () -> rec.errors.stream().anyMatch(t -> t instanceof JobException
                        && ((JobException) t).reason() == JobException.Reason.LOCK_MISMATCH), "lock mismatch error");
            } finally {
                worker.close();
            }
            assertEquals(java.util.List.of(job.id()), redis().lrange(key(q, "active"), 0, -1), "left active");
            assertNull(hash(q, job.id()).get("returnvalue"));
            assertTrue(events(q, "completed", job.id()).isEmpty());
            assertEquals(0, rec.count("completed"));
            assertEquals("another-worker:1", redis().get(key(q, job.id() + ":lock")));
        }
    }

    @Test
    void lockScriptsActOnlyForTheOwnersToken() throws Exception {
        String q = queueName("lockops");
        try (Queue queue = new Queue(q, queueOptions())) {
            QueueContext ctx = queue.context();
            String lock = key(q, "7:lock");
            assertTrue(ctx.await(Locks.take(ctx.scripts(), ctx.keys, "7", "a:1", 5_000), "take"));
            assertFalse(ctx.await(Locks.take(ctx.scripts(), ctx.keys, "7", "b:1", 5_000), "take"), "live lock");
            assertEquals("a:1", redis().get(lock));

            redis().sadd(key(q, "stalled"), "7");
            assertFalse(ctx.await(Locks.extend(ctx.scripts(), ctx.keys, "7", "b:1", 20_000), "extend"));
            assertTrue(redis().pttl(lock) <= 5_000);
            assertTrue(ctx.await(Locks.extend(ctx.scripts(), ctx.keys, "7", "a:1", 20_000), "extend"));
            assertTrue(redis().pttl(lock) > 15_000);
            assertFalse(redis().sismember(key(q, "stalled"), "7"), "a renewed job is no stall candidate");

            assertEquals(java.util.List.of("8"), ctx.await(Locks.extendAll(ctx.scripts(), ctx.keys,
                    Map.of("7", "a:1", "8", "a:2"), 30_000), "extendLocks"), "only the lost lock is reported");
            assertTrue(redis().pttl(lock) > 25_000);

            assertFalse(ctx.await(Locks.release(ctx.scripts(), ctx.keys, "7", "b:1"), "release"));
            assertEquals(1, redis().exists(lock));
            assertTrue(ctx.await(Locks.release(ctx.scripts(), ctx.keys, "7", "a:1"), "release"));
            assertEquals(0, redis().exists(lock));
        }
    }

    private static void finish(QueueContext ctx, String id, String token) {
        MoveToFinished.Request r = new MoveToFinished.Request();
        r.jobId = id;
        r.token = token;
        r.now = ctx.now();
        r.completed = true;
        r.value = "1";
        r.lockMs = 30_000;
        ctx.await(MoveToFinished.run(ctx.scripts(), ctx.keys, r), "moveToCompleted");
    }
}
