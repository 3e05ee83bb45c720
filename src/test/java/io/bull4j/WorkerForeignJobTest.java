package io.bull4j;

import io.bull4j.internal.script.MoveToActive;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Jobs as other producers (Node's bullmq) leave them: odd options, scheduler jobs, deduplication keys. A worker
 * must handle them the way BullMQ's does, and never strand one.
 */
class WorkerForeignJobTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void jobWithOptionsOutOfOurRangesStillRuns() throws Exception {
        String q = queueName("oddopts");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job odd = queue.add("odd", Map.of());
            Job garbage = queue.add("garbage", Map.of());
            redis().hset(key(q, odd.id()), "opts", "{\"attempts\":2,\"stackTraceLimit\":-1,\"keepLogs\":-3,"
                    + "\"backoff\":{\"type\":\"fixed\",\"delay\":-5,\"jitter\":7},\"priority\":99999999,"
                    + "\"timestamp\":-1,\"sizeLimit\":0,\"kl\":-2}");
            redis().hset(key(q, garbage.id()), "opts", "not json");
            Worker worker = new Worker(q, j -> j.opts().attempts(), workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 2, "both completed");
            } finally {
                worker.close();
            }
            assertEquals("2", hash(q, odd.id()).get("returnvalue"), "the valid options are still read");
            assertEquals("0", hash(q, garbage.id()).get("returnvalue"));
            assertEquals(0, redis().llen(key(q, "active")));
        }
    }

    @Test
    void schedulerJobIsNeverFailedForStalling() throws Exception {
        String q = queueName("schedstall");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("tick", Map.of());
            redis().hset(key(q, job.id()), "rjk", "every-minute");
            redis().hset(key(q, "repeat:every-minute"), Map.of("name", "tick", "every", "60000", "ic", "1"));
            QueueContext ctx = queue.context();
            ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "dead:1", 30_000, null), "fetch");
            redis().del(key(q, job.id() + ":lock"));
            Worker worker = new Worker(q, j -> runs.incrementAndGet(), workerOptions()
                    .stalledInterval(Duration.ofMillis(500)).maxStalledCount(0).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "ran again");
            } finally {
                worker.close();
            }
            assertEquals(1, runs.get());
            assertEquals("1", hash(q, job.id()).get("stc"));
            assertNull(hash(q, job.id()).get("failedReason"));
        }
    }

    @Test
    void finishingReleasesTheJobsOwnDeduplicationKey() throws Exception {
        String q = queueName("dedup");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job owner = queue.add("owner", Map.of());
            Job throttled = queue.add("throttled", Map.of());
            Job other = queue.add("other", Map.of());
            // as bullmq stores them: deid on the job, de:<id> pointing at the owner job
            redis().hset(key(q, owner.id()), "deid", "d1");
            redis().set(key(q, "de:d1"), owner.id());
            redis().hset(key(q, throttled.id()), "deid", "d2");
            redis().psetex(key(q, "de:d2"), 60_000, throttled.id());
            redis().hset(key(q, other.id()), "deid", "d3");
            redis().set(key(q, "de:d3"), "someone-else");
            Worker worker = new Worker(q, j -> null, workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 3, "all completed");
            } finally {
                worker.close();
            }
            assertEquals(0, redis().exists(key(q, "de:d1")), "no TTL and points at the job: released");
            assertEquals(throttled.id(), redis().get(key(q, "de:d2")), "a TTL window outlives the job");
            assertEquals("someone-else", redis().get(key(q, "de:d3")), "not this job's key");
        }
    }
}
