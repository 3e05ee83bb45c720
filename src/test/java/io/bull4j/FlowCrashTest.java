package io.bull4j;

import io.bull4j.support.ChildJvm;
import io.bull4j.support.HangingWorkerMain;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A worker JVM running a flow's child is killed with SIGKILL: the child is recovered as stalled and run by another
 * worker, and the parent completes exactly once, with every child's value.
 */
class FlowCrashTest {
    @Test
    void childOfAKilledWorkerIsRecoveredAndTheParentCompletesOnceWithAllValues() throws Exception {
        String qp = queueName("crash-flow-p");
        String qc = queueName("crash-flow-c");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("parent", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("child", qc).data(Map.of("n", 1)).options(JobOptions.builder().jobId("C1")
                            .build()).build())
                    .child(FlowJob.builder("child", qc).data(Map.of("n", 2)).options(JobOptions.builder().jobId("C2")
                            .build()).build())
                    .build());

            String killedJob;
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), qc,
                    "2000", "1000")) {
                String started = child.awaitLine(l -> l.startsWith("STARTED "), 60);
                killedJob = started.split(" ")[1];
                child.kill();
                assertFalse(child.isAlive());
            }
            assertNotNull(redis().get(key(qc, killedJob) + ":lock"), "the dead worker's lock is still there");

            Map<String, AtomicInteger> childRuns = new ConcurrentHashMap<>();
            AtomicInteger parentRuns = new AtomicInteger();
            Worker children = new Worker(qc, job -> {
                childRuns.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
                return ((Number) ((Map<?, ?>) job.data()).get("n")).intValue() * 100;
            }, workerOptions().lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofSeconds(1)).build());
            Worker parents = new Worker(qp, job -> {
                parentRuns.incrementAndGet();
                return job.getChildrenValues();
            }, workerOptions().build());
            try {
                eventually(Duration.ofSeconds(30), () -> redis().zscore(key(qp, "completed"), "P") != null,
                        "parent completed");
            } finally {
                children.close();
                parents.close();
            }
            assertEquals(1, parentRuns.get());
            assertEquals(1, childRuns.get(killedJob).get(), "the recovered child ran once on the live worker");
            assertEquals("1", hash(qc, killedJob).get("stc"));
            assertEquals(Map.of("bull:" + qc + ":C1", 100, "bull:" + qc + ":C2", 200),
                    io.bull4j.internal.codec.Json.DEFAULT.readValue(hash(qp, "P").get("returnvalue"), Map.class));
            assertEquals(1, events(qp, "completed", "P").size(), "the parent completed exactly once");
            assertEquals(1, events(qp, "waiting", "P").size(), "and was released once");
        }
    }

    @Test
    void childThatStalledTooOftenFailsItsParentUnderFailParentOnFailure() throws Exception {
        String qp = queueName("stall-flow-p");
        String qc = queueName("stall-flow-c");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("parent", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("child", qc).options(JobOptions.builder().jobId("C")
                            .failParentOnFailure(true).build()).build())
                    .build());
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), qc,
                    "2000", "1000")) {
                child.awaitLine(l -> l.startsWith("STARTED C "), 60);
                child.kill();
            }
            AtomicInteger parentRuns = new AtomicInteger();
            Worker children = new Worker(qc, job -> "never", workerOptions().lockDuration(Duration.ofSeconds(2))
                    .stalledInterval(Duration.ofSeconds(1)).maxStalledCount(0).build());
            Worker parents = new Worker(qp, job -> parentRuns.incrementAndGet(), workerOptions().build());
            try {
                eventually(Duration.ofSeconds(30), () -> redis().zscore(key(qp, "failed"), "P") != null,
                        "parent failed");
            } finally {
                children.close();
                parents.close();
            }
            assertEquals(0, parentRuns.get(), "the parent's processor never ran");
            assertEquals("job stalled more than allowable limit", hash(qc, "C").get("failedReason"));
            assertEquals("child bull:" + qc + ":C failed", hash(qp, "P").get("failedReason"));
        }
    }
}
