package io.bull4j;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Flows whose shape no job can satisfy: a job that is its own ancestor (a cycle, through a child or through the
 * root's parent), or one job under two different parents (a job has one parent: the other would wait for it
 * forever). Each is refused before anything is written; a job repeated under one parent is one job, as in BullMQ.
 */
class FlowShapeTest {
    private static JobOptions id(String id) {
        return JobOptions.builder().jobId(id).build();
    }

    private static FlowJob node(String name, String q, String id, FlowJob... children) {
        return FlowJob.builder(name, q).options(id(id)).children(List.of(children)).build();
    }

    private static void assertNothingWritten(String q) {
        assertEquals(List.of(), redis().keys("bull:" + q + ":*"), "nothing of queue " + q + " was written");
    }

    @Test
    void aJobThatIsItsOwnAncestorIsRefusedAndWritesNothing() {
        String q = queueName("shape-cycle");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            // A under A: stored by both implementations as a parent waiting for itself, forever
            ValidationException self = assertThrows(ValidationException.class,
                    () -> flows.add(node("a", q, "A", node("again", q, "A"))));
            assertEquals("jobId", self.field());
            assertTrue(self.getMessage().contains("bull:" + q + ":A"), self.getMessage());
            assertNothingWritten(q);
            // deeper: A -> B -> A
            assertEquals("jobId", assertThrows(ValidationException.class,
                    () -> flows.add(node("a", q, "A", node("b", q, "B", node("again", q, "A"))))).field());
            assertNothingWritten(q);
        }
        // through the root's parent: P (existing) waits for R, which would wait for P
        try (Queue queue = new Queue(q, queueOptions());
             FlowProducer flows = new FlowProducer(queueOptions())) {
            queue.add("p", Map.of(), id("P"));
            ValidationException viaRef = assertThrows(ValidationException.class, () -> flows.add(
                    FlowJob.builder("r", q).options(id("R")).parent(ParentRef.of("P", "bull:" + q))
                            .child(node("p-again", q, "P")).build()));
            assertEquals("jobId", viaRef.field());
            assertFalse(redis().exists(key(q, "R")) > 0);
            assertEquals(List.of(), redis().smembers(key(q, "P:dependencies")).stream().toList());
            assertNull(hash(q, "P").get("parentKey"));
        }
    }

    /**
     * A cycle through two flows of one addBulk: A over B in the first, B over A in the second. Each job would wait
     * for the other forever (both stay in waiting-children); it is refused like a cycle within one flow.
     */
    @Test
    void aCycleAcrossTheFlowsOfOneAddBulkIsRefusedAndWritesNothing() {
        String q = queueName("shape-cycle-bulk");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            ValidationException e = assertThrows(ValidationException.class, () -> flows.addBulk(List.of(
                    node("a", q, "A", node("b", q, "B")), node("b", q, "B", node("a", q, "A")))));
            assertEquals("jobId", e.field());
            assertTrue(e.getMessage().contains("ancestor"), e.getMessage());
            assertNothingWritten(q);
            // longer: A over B, B over C, C over A
            assertEquals("jobId", assertThrows(ValidationException.class, () -> flows.addBulk(List.of(
                    node("a", q, "A", node("b", q, "B")), node("b", q, "B", node("c", q, "C")),
                    node("c", q, "C", node("a", q, "A"))))).field());
            assertNothingWritten(q);
            // through an existing parent: R joins P, and the next flow puts P under R
            try (Queue queue = new Queue(q, queueOptions())) {
                queue.add("p", Map.of(), id("P"));
                assertEquals("jobId", assertThrows(ValidationException.class, () -> flows.addBulk(List.of(
                        FlowJob.builder("r", q).options(id("R")).parent(ParentRef.of("P", "bull:" + q)).build(),
                        node("r", q, "R", node("p-again", q, "P"))))).field());
                assertFalse(redis().exists(key(q, "R")) > 0);
                assertNull(hash(q, "P").get("parentKey"));
                redis().del(key(q, "P"), key(q, "id"), key(q, "wait"), key(q, "events"), key(q, "meta"),
                        key(q, "marker"));
            }
            // a chain over two flows is no cycle: A over B, then B over C
            flows.addBulk(List.of(node("a", q, "A", node("b", q, "B")), node("b", q, "B", node("c", q, "C"))));
            assertEquals("bull:" + q + ":A", hash(q, "B").get("parentKey"));
            assertEquals("bull:" + q + ":B", hash(q, "C").get("parentKey"));
        }
    }

    @Test
    void oneJobUnderTwoParentsIsRefusedAndWritesNothing() {
        String q = queueName("shape-dag");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            // X under B and under C: linked to C, it would leave B waiting forever (BullMQ leaves C waiting)
            ValidationException e = assertThrows(ValidationException.class, () -> flows.add(
                    node("a", q, "A", node("b", q, "B", node("x", q, "X")), node("c", q, "C", node("x", q, "X")))));
            assertEquals("jobId", e.field());
            assertTrue(e.getMessage().contains("bull:" + q + ":X"), e.getMessage());
            assertNothingWritten(q);
            // the same over two flows of one addBulk
            assertEquals("jobId", assertThrows(ValidationException.class, () -> flows.addBulk(List.of(
                    node("b", q, "B", node("x", q, "X")), node("c", q, "C", node("x", q, "X"))))).field());
            assertNothingWritten(q);

            // one job twice under one parent is one child, as in BullMQ; a root that is also a child elsewhere
            // is linked to that parent
            JobNode added = flows.add(node("a", q, "A", node("x", q, "X"), node("x", q, "X")));
            assertEquals(List.of("bull:" + q + ":X"), List.copyOf(redis().smembers(key(q, "A:dependencies"))));
            assertEquals(2, added.children().size());
            flows.addBulk(List.of(node("y", q, "Y"), node("d", q, "D", node("y", q, "Y"))));
            assertEquals("bull:" + q + ":D", hash(q, "Y").get("parentKey"));
        }
    }

    @Test
    void aDeepChainIsAddedOnASmallStack() throws Exception {
        String q = queueName("shape-deep");
        int depth = 4000;
        FlowJob chain = FlowJob.builder("leaf", q).options(id("n" + depth)).build();
        for (int i = depth - 1; i >= 0; i--) {
            chain = FlowJob.builder("link", q).options(id("n" + i)).child(chain).build();
        }
        FlowJob flow = chain;
        java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            // a thread with a small stack, as a pool's may be: the add must not recurse once per level
            Thread t = new Thread(null, () -> {
                try {
                    outcome.set(flows.add(flow));
                } catch (Throwable e) {
                    outcome.set(e);
                }
            }, "deep-add", 256 * 1024);
            t.start();
            t.join(java.time.Duration.ofSeconds(60).toMillis());
            assertFalse(t.isAlive(), "the add ended");
            assertInstanceOf(JobNode.class, outcome.get(), () -> "the add failed: " + outcome.get());
            JobNode n = (JobNode) outcome.get();
            int levels = 0;
            while (!n.children().isEmpty()) {
                n = n.children().get(0);
                levels++;
            }
            assertEquals(depth, levels);
            assertEquals("n" + depth, n.job().id());
            assertEquals(List.of("n" + depth), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(depth, redis().zcard(key(q, "waiting-children")));
        }
    }
}
