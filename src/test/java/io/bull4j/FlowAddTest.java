package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** FlowProducer.add: what a flow writes (BullMQ 6.7's keys and fields), refusals that write nothing. */
class FlowAddTest {

    @Test
    void threeLevelTreeOverThreeQueuesIsStoredAsBullmqStoresIt() {
        String qa = queueName("flow-a");
        String qb = queueName("flow-b");
        String qc = queueName("flow-c");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            FlowJob flow = FlowJob.builder("root", qa).data(Map.of("r", 1))
                    .options(JobOptions.builder().jobId("R").delay(Duration.ofMillis(500)).build())
                    .child(FlowJob.builder("c1", qb).data(Map.of("c", 1))
                            .options(JobOptions.builder().attempts(2).failParentOnFailure(true).build())
                            .child(FlowJob.builder("g1", qc).options(JobOptions.builder().jobId("G")
                                    .ignoreDependencyOnFailure(true).build()).build())
                            .build())
                    .child(FlowJob.builder("c2", qa).data("x")
                            .options(JobOptions.builder().priority(3).removeOnComplete(true).build()).build())
                    .build();
            JobNode tree = flows.add(flow);

            assertEquals("R", tree.job().id());
            String c1 = tree.children().get(0).job().id();
            String c2 = tree.children().get(1).job().id();
            assertTrue(c1.matches("[0-9a-f-]{36}"), "a node without id gets a UUID: " + c1);
            assertEquals("G", tree.children().get(0).children().get(0).job().id());

            // the root: waiting-children, scored by its timestamp, its delay kept for when it is released
            Map<String, String> root = hash(qa, "R");
            assertEquals("500", root.get("delay"));
            assertEquals(Double.valueOf(root.get("timestamp")), redis().zscore(key(qa, "waiting-children"), "R"));
            assertNull(redis().zscore(key(qa, "delayed"), "R"));
            assertNull(root.get("parentKey"));
            assertEquals(Set.of("bull:" + qa + ":" + c2, "bull:" + qb + ":" + c1),
                    redis().smembers(key(qa, "R") + ":dependencies"));
            assertEquals(List.of("added", "waiting-children"), eventNames(qa, "R"));

            // the middle node: a parent and a child
            Map<String, String> mid = hash(qb, c1);
            assertEquals("bull:" + qa + ":R", mid.get("parentKey"));
            assertEquals("{\"id\":\"R\",\"queueKey\":\"bull:" + qa + "\",\"fpof\":true}", mid.get("parent"));
            JsonNode opts = json(mid.get("opts"));
            assertTrue(opts.get("fpof").asBoolean());
            assertEquals("R", opts.get("parent").get("id").asText());
            assertEquals("bull:" + qa, opts.get("parent").get("queue").asText());
            assertEquals(2, opts.get("attempts").asInt());
            assertNotNull(redis().zscore(key(qb, "waiting-children"), c1));
            assertEquals(Set.of("bull:" + qc + ":G"), redis().smembers(key(qb, c1) + ":dependencies"));

            // the leaves: ready (prioritized for c2, wait for G), linked to their parents
            assertNotNull(redis().zscore(key(qa, "prioritized"), c2));
            assertEquals(List.of("G"), redis().lrange(key(qc, "wait"), 0, -1));
            assertEquals("{\"id\":\"" + c1 + "\",\"queueKey\":\"bull:" + qb + "\",\"idof\":true}",
                    hash(qc, "G").get("parent"));
            assertEquals(List.of("added", "waiting"), eventNames(qc, "G"));
            // each node counts in its queue's id counter, as BullMQ's adds do, and each queue gets its meta
            assertEquals(2, idCounter(qa));
            assertEquals(1, idCounter(qb));
            assertEquals("10000", redis().hget(key(qc, "meta"), "opts.maxLenEvents"));
        }
    }

    @Test
    void childThatExistsWithAnotherLiveParentRefusesTheWholeFlow() {
        String q = queueName("flow-conflict");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p1", q).options(JobOptions.builder().jobId("P1").build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build()).build());
            Map<String, String> before = hash(q, "C");
            JobException e = assertThrows(JobException.class, () -> flows.add(FlowJob.builder("p2", q)
                    .options(JobOptions.builder().jobId("P2").build())
                    .child(FlowJob.builder("other", q).options(JobOptions.builder().jobId("O").build()).build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build())
                    .build()));
            assertEquals(JobException.Reason.PARENT_CONFLICT, e.reason());
            assertEquals(0, redis().exists(key(q, "P2"), key(q, "O")), "nothing of the refused flow was written");
            assertEquals(before, hash(q, "C"));
            assertEquals(2, idCounter(q));
        }
    }

    @Test
    void completedChildThatExistsIsCountedAsProcessedAndReleasesTheParent() throws Exception {
        String q = queueName("flow-existing");
        try (Queue queue = new Queue(q, queueOptions());
             FlowProducer flows = new FlowProducer(queueOptions())) {
            queue.add("c", Map.of(), JobOptions.builder().jobId("C").build());
            Worker w = new Worker(q, job -> Map.of("done", job.id()), workerOptions().build());
            try {
                eventually(Duration.ofSeconds(15), () -> redis().zscore(key(q, "completed"), "C") != null, "C done");
            } finally {
                w.close();
            }
            JobNode tree = flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build()).build());
            assertEquals("C", tree.children().get(0).job().id());
            assertEquals("{\"done\":\"C\"}", redis().hget(key(q, "P") + ":processed", "bull:" + q + ":C"));
            assertEquals(0, redis().scard(key(q, "P") + ":dependencies"));
            assertNull(redis().zscore(key(q, "waiting-children"), "P"), "nothing to wait for");
            assertEquals(List.of("P"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("bull:" + q + ":P", hash(q, "C").get("parentKey"));
            assertEquals(List.of("added", "waiting-children", "waiting"), eventNames(q, "P"));
            assertEquals("waiting-children", events(q, "waiting", "P").get(0).get("prev"));
            assertTrue(eventNames(q, "C").contains("duplicated"));
        }
    }

    @Test
    void badInputWritesNothing() {
        String q = queueName("flow-bad");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            ValidationException e = assertThrows(ValidationException.class, () -> flows.add(FlowJob.builder("p", q)
                    .child(FlowJob.builder("c", q).data("x".repeat(100))
                            .options(JobOptions.builder().sizeLimit(10).build()).build()).build()));
            assertEquals("data", e.field());
            assertEquals(0, redis().exists(key(q, "id"), key(q, "waiting-children"), key(q, "wait")));
            assertEquals("queueDefaults." + q + ".jobId", assertThrows(ValidationException.class, () -> flows.add(
                    FlowJob.builder("p", q).build(), Map.of(q, JobOptions.builder().jobId("fixed").build()))).field());
            assertEquals(0, redis().exists(key(q, "id"), key(q, "fixed")));
            assertThrows(ValidationException.class, () -> JobOptions.builder().failParentOnFailure(true)
                    .ignoreDependencyOnFailure(true));
            assertThrows(ValidationException.class, () -> FlowJob.builder("p", "a:b"));
            ValidationException dedup = assertThrows(ValidationException.class, () -> flows.add(FlowJob.builder("p", q)
                    .options(JobOptions.builder().deduplication(Deduplication.builder("d").build()).build())
                    .child(FlowJob.builder("c", q).build()).build()));
            assertEquals("deduplication", dedup.field());
            assertThrows(ValidationException.class, () -> flows.add(FlowJob.builder("p", q)
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().deduplication(Deduplication.of("d"))
                            .build()).build()).build()), "nor with a parent, as in BullMQ");
            assertEquals(0, redis().exists(key(q, "id"), key(q, "waiting-children"), key(q, "wait")));
        }
    }

    @Test
    void addBulkAddsSeveralFlowsAndALeafRootGoesStraightToWait() {
        String q = queueName("flow-bulk");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            List<JobNode> trees = flows.addBulk(List.of(
                    FlowJob.builder("leaf", q).options(JobOptions.builder().jobId("L").build()).build(),
                    FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                            .child(FlowJob.builder("c", q).build()).build()));
            assertEquals(2, trees.size());
            assertEquals("L", trees.get(0).job().id());
            assertTrue(trees.get(0).children().isEmpty());
            assertNotNull(redis().zscore(key(q, "waiting-children"), "P"));
            String c = trees.get(1).children().get(0).job().id();
            assertEquals(Set.of("L", c), Set.copyOf(redis().lrange(key(q, "wait"), 0, -1)));
        }
    }

    @Test
    void queueDefaultsFillTheOptionsANodeLeavesUnset() {
        String qp = queueName("flow-qd-p");
        String qc = queueName("flow-qd-c");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c1", qc).options(JobOptions.builder().jobId("C1").build()).build())
                    .child(FlowJob.builder("c2", qc).options(JobOptions.builder().jobId("C2").attempts(9).build())
                            .build())
                    .build(), Map.of(qc, JobOptions.builder().attempts(3).priority(4).build()));
            assertEquals(3, json(hash(qc, "C1").get("opts")).get("attempts").asInt());
            assertEquals("4", hash(qc, "C1").get("priority"));
            assertEquals(9, json(hash(qc, "C2").get("opts")).get("attempts").asInt(), "the node's own option wins");
            assertEquals(0, json(hash(qp, "P").get("opts")).get("attempts").asInt(), "other queues get none");
        }
    }

    @Test
    void aLoneRootNodeMayBeDeduplicated() {
        String q = queueName("flow-dedup");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            Job owner = queue.add("owner", Map.of(), JobOptions.builder().deduplication(Deduplication.of("d1"))
                    .build());
            List<JobNode> trees = flows.addBulk(List.of(
                    FlowJob.builder("dup", q).options(JobOptions.builder().jobId("D")
                            .deduplication(Deduplication.of("d1")).build()).build(),
                    FlowJob.builder("fresh", q).options(JobOptions.builder().jobId("F")
                            .deduplication(Deduplication.of("d2")).build()).build()));
            assertEquals(owner.id(), trees.get(0).job().id(), "the node is the job deduplication kept");
            assertEquals(0, redis().exists(key(q, "D")));
            assertEquals("d2", hash(q, "F").get("deid"));
            assertEquals("F", redis().get(key(q, "de:d2")));
            assertEquals(1, events(q, "deduplicated", owner.id()).size());
        }
    }
}
