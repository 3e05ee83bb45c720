package io.bull4j;

import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveToActive;
import io.bull4j.internal.script.MoveToFinished;
import io.bull4j.support.TestRedis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static io.bull4j.TestSupport.redis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shared steps of the JobOps tests: moving jobs through states with the real transitions, reading events. */
final class JobOpsFixtures {
    static final long LOCK_MS = 30_000;

    private JobOpsFixtures() {
    }

    /** Takes the next job as a worker would (moveToActive), locked with {@code token}; returns it with the token. */
    static Job activate(Queue queue, String token) {
        QueueContext ctx = queue.context();
        FetchedJob f = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), token, LOCK_MS, null),
                "moveToActive");
        assertTrue(f.isPresent(), "a job to activate");
        return new Job(ctx, f.id(), f.fields(), token);
    }

    /** Completes (value = JSON result) or fails (value = reason) an active job for its lock owner. */
    static void finish(Queue queue, Job active, boolean completed, String value) {
        QueueContext ctx = queue.context();
        MoveToFinished.Request r = new MoveToFinished.Request();
        r.jobId = active.id();
        r.token = active.token();
        r.now = ctx.now();
        r.completed = completed;
        r.value = value;
        r.stacktrace = completed ? null : "[\"Error: " + value + "\"]";
        r.lockMs = LOCK_MS;
        ctx.await(MoveToFinished.run(ctx.scripts(), ctx.keys, r), "moveToFinished");
    }

    /** Adds a job and takes it through active to completed or failed. */
    static Job finished(Queue queue, String name, boolean completed, String value) {
        Job added = queue.add(name, Map.of());
        Job active = activate(queue, "tok-" + added.id());
        assertEquals(added.id(), active.id());
        finish(queue, active, completed, value);
        return queue.getJob(added.id());
    }

    static String key(String queue, String suffix) {
        return TestRedis.key(queue, suffix);
    }

    /** The events stream entries about {@code jobId}, oldest first. */
    static List<Map<String, String>> events(String queue, String jobId) {
        return TestRedis.stream(queue).stream().filter(b -> jobId.equals(b.get("jobId"))).toList();
    }

    /** The last events stream entry about {@code jobId}. */
    static Map<String, String> lastEvent(String queue, String jobId) {
        List<Map<String, String>> mine = events(queue, jobId);
        assertTrue(!mine.isEmpty(), "an event about job " + jobId);
        return mine.get(mine.size() - 1);
    }

    /** A clock a test moves by hand. */
    static final class ManualClock extends Clock {
        private final AtomicLong millis;

        ManualClock(Instant start) {
            this.millis = new AtomicLong(start.toEpochMilli());
        }

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
