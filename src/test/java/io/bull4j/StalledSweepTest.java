package io.bull4j;

import io.bull4j.internal.script.MoveToActive;
import io.bull4j.internal.script.SweepStalledJobs;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The sweep between stalled passes, run directly on prepared Redis state: it requeues only jobs a pass marked whose
 * lock is gone and that are still active, marks nothing, and leaves stalled-check alone.
 */
class StalledSweepTest {
    private static final String STALLED_REASON = "job stalled more than allowable limit";

    /** Fetches the next job as worker "w"; when {@code die}, its lock is deleted as if it had expired. */
    private static String take(Queue queue, boolean die) {
        QueueContext ctx = queue.context();
        String id = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "w:1", 30_000, null),
                "moveToActive").id();
        if (die) {
            redis().del(ctx.keys.lock(id));
        }
        return id;
    }

    private static SweepStalledJobs.Result sweep(Queue queue, int maxStalledCount) {
        QueueContext ctx = queue.context();
        return ctx.await(SweepStalledJobs.run(ctx.scripts(), ctx.keys, ctx.now(), maxStalledCount), "sweep");
    }

    @Test
    void withoutStalledCheckTheSweepOnlySaysThatAPassIsDue() {
        String q = queueName("sweep-due");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("j", Map.of());
            String id = take(queue, true);
            redis().sadd(key(q, "stalled"), id);

            SweepStalledJobs.Result r = sweep(queue, 1);

            assertTrue(r.passDue());
            assertEquals(List.of(), r.moved());
            assertEquals(List.of(id), redis().lrange(key(q, "active"), 0, -1), "left for the regular pass");
            assertTrue(redis().sismember(key(q, "stalled"), id));
            assertEquals(0, redis().exists(key(q, "stalled-check")), "the sweep never sets stalled-check");
        }
    }

    @Test
    void requeuesOnlyMarkedActiveJobsWhoseLockIsGone() {
        String q = queueName("sweep");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 4; i++) {
                queue.add("j", Map.of());
            }
            String dead = take(queue, true);       // marked, lock gone, active: requeued
            String alive = take(queue, false);     // marked, lock held (renewal would have unmarked it)
            String unmarked = take(queue, true);   // lock gone but not marked by a pass: left for the passes
            String finished = "gone-1";            // marked, no lock, not active (finished meanwhile)
            redis().sadd(key(q, "stalled"), dead, alive, finished);
            redis().set(key(q, "stalled-check"), "123", io.lettuce.core.SetArgs.Builder.px(60_000));

            SweepStalledJobs.Result r = sweep(queue, 1);

            assertFalse(r.passDue());
            assertEquals(List.of(dead), r.moved());
            assertEquals(2, redis().llen(key(q, "wait")));
            assertEquals(dead, redis().lindex(key(q, "wait"), -1), "the front of wait: it runs next");
            assertFalse(redis().lrange(key(q, "active"), 0, -1).contains(dead));
            assertTrue(redis().lrange(key(q, "active"), 0, -1).containsAll(List.of(alive, unmarked)));
            assertEquals("1", hash(q, dead).get("stc"));
            assertNull(hash(q, dead).get("defa"), "first stall is within maxStalledCount 1");
            assertEquals(List.of("stalled"), events(q, "stalled", dead).stream().map(e -> e.get("event")).toList());
            assertEquals("active", events(q, "waiting", dead).get(1).get("prev"));
            assertEquals(java.util.Set.of(alive), redis().smembers(key(q, "stalled")),
                    "handled ids leave the set; nothing new is marked");
            assertEquals("123", redis().get(key(q, "stalled-check")), "stalled-check untouched");
            assertTrue(redis().pttl(key(q, "stalled-check")) > 50_000);
            assertNull(hash(q, unmarked).get("stc"));
            assertNull(hash(q, alive).get("stc"));
        }
    }

    @Test
    void stallLimitSparesSchedulerJobsAndDamagedJobsAreSetAside() {
        String q = queueName("sweep-limit");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 3; i++) {
                queue.add("j", Map.of());
            }
            String plain = take(queue, true);
            String scheduled = take(queue, true);
            String damaged = take(queue, true);
            redis().hset(key(q, plain), "stc", "1");
            redis().hset(key(q, scheduled), Map.of("stc", "1", "rjk", "every-minute"));
            redis().hset(key(q, "repeat:every-minute"), "every", "60000");
            redis().hset(key(q, damaged), "stc", "many");
            redis().sadd(key(q, "stalled"), plain, scheduled, damaged);
            redis().set(key(q, "stalled-check"), "1", io.lettuce.core.SetArgs.Builder.px(60_000));

            SweepStalledJobs.Result r = sweep(queue, 1);

            assertEquals(java.util.Set.of(plain, scheduled), java.util.Set.copyOf(r.moved()));
            assertEquals(STALLED_REASON, hash(q, plain).get("defa"), "past the limit: the next fetch fails it");
            assertEquals("2", hash(q, plain).get("stc"));
            assertNull(hash(q, scheduled).get("defa"), "a live scheduler's job is never failed for stalling");
            assertEquals("2", hash(q, scheduled).get("stc"));
            assertNotNull(redis().zscore(key(q, "failed"), damaged), "damaged: set aside, not looped");
            assertTrue(hash(q, damaged).get("failedReason").contains("stc"));
            assertEquals("many", hash(q, damaged).get("stc"), "nothing written to the damaged field");
            assertEquals(0, redis().llen(key(q, "active")));
            assertEquals(0, redis().scard(key(q, "stalled")));
        }
    }
}
