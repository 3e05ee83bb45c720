package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static io.bull4j.WorkerTestKit.scriptCalls;
import static org.junit.jupiter.api.Assertions.*;

/**
 * When a fetch reports more jobs ready, the worker takes them for its other free slots in one script call
 * (moveManyToActive), not one call per job, and each job it takes runs in a slot of its own.
 */
class FetchSeveralTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void anIdleWorkerTakesTheJobsOfOneBulkInOneCall() throws Exception {
        String q = queueName("fetch-several");
        CountDownLatch drained = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Worker worker = new Worker(q, job -> {
                running.incrementAndGet();
                assertTrue(release.await(30, TimeUnit.SECONDS));
                return null;
            }, workerOptions().concurrency(10)
                    // no timer-driven script calls while they are counted: stalled sweeps, passes, drain timeouts
                    .stalledSweepInterval(Duration.ZERO).stalledInterval(Duration.ofMinutes(5))
                    .drainDelay(Duration.ofSeconds(30)).build(), new WorkerListener() {
                @Override
                public void onDrained() {
                    drained.countDown();
                }
            });
            try {
                assertTrue(drained.await(10, TimeUnit.SECONDS), "the worker found the queue empty");
                long before = scriptCalls();
                List<BulkJob> jobs = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    jobs.add(BulkJob.of("j" + i, Map.of("i", i)));
                }
                queue.addBulk(jobs); // one addJob call for 12 jobs
                eventually(WAIT, () -> running.get() == 10, "ten jobs running");
                long calls = scriptCalls() - before;
                // the add, the fetch that took one job and saw eleven more, one moveManyToActive for the other nine
                // slots (before: one moveToActive per job, 12 calls)
                assertTrue(calls <= 3, "script calls from the add to ten running jobs: " + calls);
                assertEquals(10, redis().llen(key(q, "active")));
                assertEquals(2, redis().llen(key(q, "wait")), "two left for the slots that free up");
            } finally {
                release.countDown();
            }
            eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 12, "all twelve completed");
            worker.close();
        }
    }
}
