package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** The step pattern (moveToWaitingChildren), children added under an existing parent, removeChildDependency. */
class FlowStepTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aRunningParentAddsChildrenWaitsForThemAndRunsAgain() throws Exception {
        String q = queueName("step");
        AtomicInteger runs = new AtomicInteger();
        AtomicReference<Boolean> nothingPending = new AtomicReference<>();
        try (Queue queue = new Queue(q, queueOptions());
             FlowProducer flows = new FlowProducer(queueOptions())) {
            Job parent = queue.add("parent", Map.of("n", 3));
            Worker w = new Worker(q, job -> {
                if (job.name().equals("child")) {
                    return ((Number) ((Map<?, ?>) job.data()).get("i")).intValue() * 10;
                }
                runs.incrementAndGet();
                if (job.getDependenciesCount().processed() == 0) {
                    for (int i = 1; i <= 2; i++) {
                        flows.add(FlowJob.builder("child", q).data(Map.of("i", i))
                                .parent(ParentRef.of(job.id(), job.queueQualifiedName())).build());
                    }
                    job.moveToWaitingChildren();
                    fail("moveToWaitingChildren returns only when nothing is pending");
                }
                nothingPending.set(!job.moveToWaitingChildren());
                return job.getChildrenValues(Integer.class).values().stream().mapToInt(Integer::intValue).sum();
            }, workerOptions().concurrency(1).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), parent.id()) != null, "parent completed");
            } finally {
                w.close();
            }
            assertEquals(2, runs.get());
            assertTrue(nothingPending.get(), "the second run finds nothing pending");
            assertEquals("30", hash(q, parent.id()).get("returnvalue"));
            assertEquals("active", events(q, "waiting-children", parent.id()).get(0).get("prev"));
            assertEquals(List.of("added", "waiting", "active", "waiting-children", "waiting", "active", "completed"),
                    eventNames(q, parent.id()));
            assertEquals("1", hash(q, parent.id()).get("atm"), "parking the job spent no attempt: only the completion counts");
        }
    }

    @Test
    void aFlowUnderAMissingParentIsRefusedAndWritesNothing() {
        String q = queueName("step-missing");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            JobException e = assertThrows(JobException.class, () -> flows.add(FlowJob.builder("c", q)
                    .options(JobOptions.builder().jobId("C").build())
                    .parent(ParentRef.of("nope", "bull:" + q)).build()));
            assertEquals(JobException.Reason.JOB_NOT_FOUND, e.reason());
            assertEquals(0, redis().exists(key(q, "C"), key(q, "id"), key(q, "wait")));
            ValidationException v = assertThrows(ValidationException.class, () -> flows.add(FlowJob.builder("p", q)
                    .child(FlowJob.builder("c", q).parent(ParentRef.of("x", "bull:" + q)).build()).build()));
            assertEquals("parent", v.field());
        }
    }

    @Test
    void removeChildDependencyReleasesTheParentWhenItWasTheLastChild() {
        String qp = queueName("rcd-p");
        String qc = queueName("rcd-c");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue children = new Queue(qc, queueOptions())) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("a", qc).options(JobOptions.builder().jobId("A").build()).build())
                    .child(FlowJob.builder("b", qc).options(JobOptions.builder().jobId("B").build()).build())
                    .build());
            assertTrue(children.getJob("A").removeChildDependency());
            assertNull(hash(qc, "A").get("parentKey"));
            assertNotNull(redis().zscore(key(qp, "waiting-children"), "P"), "B is still pending");
            assertTrue(children.getJob("B").removeChildDependency());
            assertNull(redis().zscore(key(qp, "waiting-children"), "P"));
            assertEquals(List.of("P"), redis().lrange(key(qp, "wait"), 0, -1));
            assertEquals("waiting-children", events(qp, "waiting", "P").get(0).get("prev"));
            JobException e = assertThrows(JobException.class, () -> children.getJob("B").removeChildDependency());
            assertEquals(JobException.Reason.JOB_NOT_FOUND, e.reason(), "no parent any more");
        }
    }
}
