package io.bull4j;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Removing jobs of flows: with or without children, across queues, a locked child, the last child of a parent. */
class FlowRemoveTest {

    private static String[] tree(FlowProducer flows, String qa, String qb, String qc) {
        flows.add(FlowJob.builder("root", qa).options(JobOptions.builder().jobId("R").build())
                .child(FlowJob.builder("mid", qb).options(JobOptions.builder().jobId("M").build())
                        .child(FlowJob.builder("leaf", qc).options(JobOptions.builder().jobId("L").build()).build())
                        .build())
                .child(FlowJob.builder("other", qc).options(JobOptions.builder().jobId("O").build()).build())
                .build());
        return new String[] {"bull:" + qa + ":R", "bull:" + qb + ":M", "bull:" + qc + ":L", "bull:" + qc + ":O"};
    }

    @Test
    void removingAParentRemovesItsChildrenInOtherQueuesAndLeavesItsOwnParentWaiting() {
        String qa = queueName("rm-a");
        String qb = queueName("rm-b");
        String qc = queueName("rm-c");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue b = new Queue(qb, queueOptions())) {
            String[] k = tree(flows, qa, qb, qc);
            assertTrue(b.remove("M"));
            assertEquals(0, redis().exists(k[1], k[2], k[1] + ":dependencies"));
            assertEquals(List.of(), redis().lrange(key(qc, "wait"), 0, 0).stream().filter("L"::equals).toList());
            assertEquals(Set.of(k[3]), redis().smembers(k[0] + ":dependencies"), "the grandparent keeps its other child");
            assertNotNull(redis().zscore(key(qa, "waiting-children"), "R"), "and keeps waiting for it");
            // as in BullMQ: removing its last child first releases M to wait, which it is then removed from
            assertEquals(List.of("added", "waiting-children", "waiting", "removed"), eventNames(qb, "M"));
            assertEquals("wait", events(qb, "removed", "M").get(0).get("prev"));
            assertEquals("wait", events(qc, "removed", "L").get(0).get("prev"));
        }
    }

    @Test
    void drainingTheLastLeafTakesItsParentAndThenTheGrandparentItWasTheLastChildOf() {
        // as bullmq 6.7.0's hard removal (removeParentDependencyKey recurses): no grandparent left waiting for a
        // job that no longer exists
        String q = queueName("rm-drain-up");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            flows.add(FlowJob.builder("g", q).options(JobOptions.builder().jobId("G").build())
                    .child(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                            .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build())
                            .build())
                    .build());
            queue.drain(false);
            assertEquals(0, redis().exists(key(q, "C"), key(q, "P"), key(q, "G"), key(q, "G") + ":dependencies"));
            assertEquals(0, redis().zcard(key(q, "waiting-children")));
        }
    }

    @Test
    void drainingTheLastLeafReleasesAGrandparentInAnotherQueue() {
        String q = queueName("rm-drain-up2");
        String top = queueName("rm-drain-top");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            flows.add(FlowJob.builder("g", top).options(JobOptions.builder().jobId("G").build())
                    .child(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                            .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build())
                            .build())
                    .build());
            queue.drain(false);
            assertEquals(0, redis().exists(key(q, "C"), key(q, "P")));
            assertNull(redis().zscore(key(top, "waiting-children"), "G"));
            assertEquals(List.of("G"), redis().lrange(key(top, "wait"), 0, -1), "released to its queue's wait");
        }
    }

    @Test
    void removingWithoutChildrenLeavesThem() {
        String qa = queueName("rmk-a");
        String qb = queueName("rmk-b");
        String qc = queueName("rmk-c");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue b = new Queue(qb, queueOptions())) {
            String[] k = tree(flows, qa, qb, qc);
            assertTrue(b.getJob("M").remove(false));
            assertEquals(0, redis().exists(k[1]));
            assertEquals(1, redis().exists(k[2]), "the child stays");
        }
    }

    @Test
    void aLockedPendingChildRefusesTheRemovalAndNothingChanges() {
        String qa = queueName("rml-a");
        String qb = queueName("rml-b");
        String qc = queueName("rml-c");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue a = new Queue(qa, queueOptions())) {
            String[] k = tree(flows, qa, qb, qc);
            redis().set(k[2] + ":lock", "someone:1");
            assertFalse(a.remove("R"));
            assertEquals(4, redis().exists(k[0], k[1], k[2], k[3]));
            redis().del(k[2] + ":lock");
            assertTrue(a.remove("R"));
            assertEquals(0, redis().exists(k[0], k[1], k[2], k[3]));
        }
    }

    @Test
    void removingTheLastPendingChildReleasesTheParent() {
        String q = queueName("rm-last");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build()).build());
            assertTrue(queue.remove("C"));
            assertNull(redis().zscore(key(q, "waiting-children"), "P"));
            assertEquals(List.of("P"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("waiting-children", events(q, "waiting", "P").get(0).get("prev"));
            assertEquals(Map.of(), redis().hgetall(key(q, "P") + ":processed"));
        }
    }

    @Test
    void removeUnprocessedChildrenKeepsProcessedAndLockedOnes() throws Exception {
        String qp = queueName("ruc-p");
        String qc = queueName("ruc-c");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue parents = new Queue(qp, queueOptions())) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("done", qc).options(JobOptions.builder().jobId("D").build()).build())
                    .build());
            Worker w = new Worker(qc, job -> "ok", workerOptions().build());
            try {
                eventually(java.time.Duration.ofSeconds(20),
                        () -> redis().zscore(key(qc, "completed"), "D") != null, "D completed");
            } finally {
                w.close();
            }
            // P was released when D completed: put it back under new children, as the step pattern does
            flows.add(FlowJob.builder("a", qc).options(JobOptions.builder().jobId("A").build())
                    .child(FlowJob.builder("g", qc).options(JobOptions.builder().jobId("G").build()).build())
                    .parent(ParentRef.of("P", "bull:" + qp)).build());
            flows.add(FlowJob.builder("held", qc).options(JobOptions.builder().jobId("H").build())
                    .parent(ParentRef.of("P", "bull:" + qp)).build());
            redis().set("bull:" + qc + ":H:lock", "someone:1");
            parents.getJob("P").removeUnprocessedChildren();
            assertEquals(0, redis().exists("bull:" + qc + ":A", "bull:" + qc + ":G"), "pending children removed");
            assertEquals(1, redis().exists("bull:" + qc + ":H"), "the locked child stays");
            assertEquals(1, redis().exists("bull:" + qc + ":D"), "the processed child stays");
            assertEquals(Set.of("bull:" + qc + ":H"), redis().smembers(key(qp, "P") + ":dependencies"));
            assertEquals(Map.of("bull:" + qc + ":D", "\"ok\""), redis().hgetall(key(qp, "P") + ":processed"));
        }
    }

    @Test
    void drainingAChildQueueReleasesAParentInAnotherQueue() {
        String qp = queueName("drain-p");
        String qc = queueName("drain-c");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue children = new Queue(qc, queueOptions())) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("a", qc).options(JobOptions.builder().jobId("A").build()).build())
                    .child(FlowJob.builder("b", qc).options(JobOptions.builder().jobId("B").build()).build())
                    .build());
            children.drain(false);
            assertEquals(0, redis().exists("bull:" + qc + ":A", "bull:" + qc + ":B"));
            assertNull(redis().zscore(key(qp, "waiting-children"), "P"));
            assertEquals(List.of("P"), redis().lrange(key(qp, "wait"), 0, -1),
                    "released as BullMQ's drain does (no event), not left waiting for deleted children");
        }
    }
}
