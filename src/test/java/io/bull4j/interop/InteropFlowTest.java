package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.FlowJob;
import io.bull4j.FlowProducer;
import io.bull4j.Job;
import io.bull4j.JobNode;
import io.bull4j.JobOptions;
import io.bull4j.Worker;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Flows across the two implementations: a flow added by one side runs its children on the other side's workers and
 * its parent on the adding side's, which reads the children's values; both sides read the same tree (getFlow) and
 * the same dependency counts.
 */
class InteropFlowTest {
    private static final String SCRIPT = "interop-flow.mjs";

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    private static String url() {
        return RedisTestServer.get().uri();
    }

    private static JsonNode nodeOne(String... args) {
        String[] argv = new String[args.length + 2];
        argv[0] = SCRIPT;
        argv[1] = args[0];
        argv[2] = url();
        System.arraycopy(args, 1, argv, 3, args.length - 1);
        return NodeBullmq.runOne(NODE, argv);
    }

    /** The tree as bull4j reads it, in the shape interop-flow.mjs prints: children sorted by id. */
    private static Map<String, Object> describe(JobNode n) {
        Map<String, Object> m = new TreeMap<>();
        Job j = n.job();
        m.put("id", j.id());
        m.put("name", j.name());
        m.put("queue", j.queueName());
        m.put("data", tree(j.data()));
        m.put("parentKey", j.parentKey());
        var c = j.getDependenciesCount();
        m.put("counts", Map.of("processed", c.processed(), "unprocessed", c.unprocessed(), "ignored", c.ignored(),
                "failed", c.failed()));
        m.put("children", n.children().stream().map(InteropFlowTest::describe)
                .sorted((a, b) -> ((String) a.get("id")).compareTo((String) b.get("id"))).toList());
        return m;
    }

    /** Node's description, normalized the same way (children sorted by id). */
    private static JsonNode sorted(JsonNode n) {
        var obj = (com.fasterxml.jackson.databind.node.ObjectNode) n.deepCopy();
        List<JsonNode> kids = new java.util.ArrayList<>();
        n.get("children").forEach(k -> kids.add(sorted(k)));
        kids.sort((a, b) -> a.get("id").asText().compareTo(b.get("id").asText()));
        var arr = obj.putArray("children");
        kids.forEach(arr::add);
        return obj;
    }

    private static void assertSameTree(JsonNode fromNode, JobNode fromJava) {
        assertEquals(sorted(fromNode), tree(describe(fromJava)), "getFlow on both sides");
    }

    @Test
    void nodeFlowRunsChildrenOnBull4jAndItsParentOnNode() throws Exception {
        String qp = queueName("iflow-parent");
        String qc = queueName("iflow-child");
        Map<String, Object> flow = Map.of("name", "root", "queueName", qp, "data", Map.of("n", 1),
                "opts", Map.of("jobId", "root-1"),
                "children", List.of(
                        Map.of("name", "mid", "queueName", qc, "data", Map.of("n", 2), "opts", Map.of("jobId", "mid-1"),
                                "children", List.of(Map.of("name", "leaf", "queueName", qc, "data", Map.of("n", 3),
                                        "opts", Map.of("jobId", "leaf-1")))),
                        Map.of("name", "other", "queueName", qc, "data", Map.of("n", 4),
                                "opts", Map.of("jobId", "other-1"))));
        JsonNode ids = nodeOne("addFlow", write(flow));
        assertEquals("root-1", ids.get("id").asText());

        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            // the tree as both sides read it before anything ran
            assertSameTree(nodeOne("getFlow", qp, "root-1"), flows.getFlow("root-1", qp));
            assertEquals(2, flows.getFlow("root-1", qp).job().getDependenciesCount().unprocessed());

            Map<String, Object> javaResults = new ConcurrentHashMap<>();
            try (NodeProcess parentWorker = NodeBullmq.start(SCRIPT, "work", url(), qp, "1")) {
                Worker children = new Worker(qc, job -> {
                    Map<String, Object> r = Map.of("by", "bull4j", "n", ((Number) ((Map<?, ?>) job.data()).get("n"))
                            .intValue() * 10, "children", job.getChildrenValues());
                    javaResults.put(job.id(), r);
                    return r;
                }, workerOptions().build());
                try {
                    JsonNode done = parentWorker.awaitLine(WAIT);
                    assertEquals("root-1", done.get("id").asText());
                    JsonNode seen = done.get("result").get("children");
                    assertEquals(tree(Map.of("bull:" + qc + ":mid-1", javaResults.get("mid-1"),
                            "bull:" + qc + ":other-1", javaResults.get("other-1"))), seen,
                            "the Node parent reads the values bull4j's children returned");
                    assertEquals(tree(Map.of("bull:" + qc + ":leaf-1", javaResults.get("leaf-1"))),
                            tree(((Map<?, ?>) javaResults.get("mid-1")).get("children")),
                            "the middle node (bull4j) read its bull4j child's value");
                } finally {
                    children.close();
                }
            }
            assertSameTree(nodeOne("getFlow", qp, "root-1"), flows.getFlow("root-1", qp));
        }
    }

    @Test
    void bull4jFlowRunsChildrenOnNodeAndItsParentOnBull4j() throws Exception {
        String qp = queueName("jflow-parent");
        String qc = queueName("jflow-child");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            JobNode added = flows.add(FlowJob.builder("root", qp).data(Map.of("n", 1))
                    .child(FlowJob.builder("a", qc).data(Map.of("n", 5)).build())
                    .child(FlowJob.builder("b", qc).data(Map.of("n", 6))
                            .options(JobOptions.builder().jobId("b-1").attempts(2).build()).build())
                    .build());
            String rootId = added.job().id();
            String a = added.children().get(0).job().id();
            assertSameTree(nodeOne("getFlow", qp, rootId), flows.getFlow(rootId, qp));

            Map<String, Object> parentSaw = new ConcurrentHashMap<>();
            Worker parent = new Worker(qp, job -> {
                parentSaw.putAll(job.getChildrenValues());
                return "parent done";
            }, workerOptions().build());
            try {
                List<JsonNode> lines = NodeBullmq.run(NODE, SCRIPT, "work", url(), qc, "2");
                assertEquals(2, lines.size());
                eventually(WAIT, () -> redis().zscore(key(qp, "completed"), rootId) != null, "parent completed");
            } finally {
                parent.close();
            }
            assertEquals(Map.of("bull:" + qc + ":" + a, Map.of("by", "node", "n", 10, "children", Map.of()),
                    "bull:" + qc + ":b-1", Map.of("by", "node", "n", 12, "children", Map.of())), parentSaw);
            JsonNode nodeView = nodeOne("getFlow", qp, rootId);
            assertSameTree(nodeView, flows.getFlow(rootId, qp));
            assertEquals(2, nodeView.get("counts").get("processed").asInt());
        }
    }

    @Test
    void aChildFailedByBull4jFailsItsNodeParentAndOneFailedByNodeIsIgnoredByABull4jParent() throws Exception {
        String qp = queueName("fflow-parent");
        String qc = queueName("fflow-child");
        // Node's flow: the child fails on bull4j, the parent (failParentOnFailure) is failed by Node's worker
        nodeOne("addFlow", write(Map.of("name", "root", "queueName", qp, "opts", Map.of("jobId", "root-f"),
                "children", List.of(Map.of("name", "bad", "queueName", qc, "data", Map.of("fail", "x"),
                        "opts", Map.of("jobId", "bad-f", "failParentOnFailure", true))))));
        Worker children = new Worker(qc, job -> {
            throw new IllegalStateException("broken on bull4j");
        }, workerOptions().build());
        try {
            JsonNode failed = NodeBullmq.run(NODE, SCRIPT, "work", url(), qp, "1").get(0);
            assertEquals("root-f", failed.get("id").asText());
            assertEquals("child bull:" + qc + ":bad-f failed", failed.get("failedReason").asText());
        } finally {
            children.close();
        }
        // bull4j's flow: the child fails on Node, ignored (ignoreDependencyOnFailure) by the bull4j parent
        String qp2 = queueName("fflow-parent2");
        String qc2 = queueName("fflow-child2");
        Map<String, Object> ignored = new ConcurrentHashMap<>();
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("root", qp2).options(JobOptions.builder().jobId("root-i").build())
                    .child(FlowJob.builder("bad", qc2).data(Map.of("fail", "broken on node"))
                            .options(JobOptions.builder().jobId("bad-i").ignoreDependencyOnFailure(true).build())
                            .build())
                    .build());
            Worker parent = new Worker(qp2, job -> {
                ignored.putAll(job.getIgnoredChildrenFailures());
                return "went on";
            }, workerOptions().build());
            try {
                JsonNode failed = NodeBullmq.run(NODE, SCRIPT, "work", url(), qc2, "1").get(0);
                assertEquals("bad-i", failed.get("id").asText());
                eventually(WAIT, () -> redis().zscore(key(qp2, "completed"), "root-i") != null, "parent completed");
            } finally {
                parent.close();
            }
        }
        assertEquals(Map.of("bull:" + qc2 + ":bad-i", "broken on node"), ignored);
    }

    /**
     * queue.getDependencies pages alike on both sides: the same children at the same positions (Redis's scan order,
     * over several scans: 250 children), the same values, jobs and totals, for pending and then processed children.
     */
    @Test
    void getDependenciesPagesAsBullmqDoes() throws Exception {
        String qp = queueName("dflow-parent");
        String qc = queueName("dflow-child");
        int width = 250;
        long[][] ranges = {{0, 9}, {95, 204}, {240, -1}, {0, -1}, {300, 310}, {7, 7}};
        try (FlowProducer flows = new FlowProducer(queueOptions()); io.bull4j.Queue parents =
                new io.bull4j.Queue(qp, queueOptions())) {
            FlowJob.Builder root = FlowJob.builder("root", qp).options(JobOptions.builder().jobId("P").build());
            for (int i = 0; i < width; i++) {
                root.child(FlowJob.builder("c", qc).data(Map.of("n", i))
                        .options(JobOptions.builder().jobId("c" + i).build()).build());
            }
            flows.add(root.build());
            for (long[] r : ranges) {
                assertSamePage(parents, "P", "pending", r);
            }
            Worker children = new Worker(qc, job -> Map.of("n", job.id()), workerOptions().concurrency(10).build());
            try {
                eventually(WAIT, () -> redis().zcard(key(qc, "completed")) == width, "children completed");
            } finally {
                children.close();
            }
            for (long[] r : ranges) {
                assertSamePage(parents, "P", "processed", r);
                assertSamePage(parents, "P", "pending", r);
            }
            assertSamePage(parents, "missing", "processed", new long[] {0, -1});
        }
    }

    private void assertSamePage(io.bull4j.Queue queue, String parentId, String type, long[] range) {
        JsonNode node = nodeOne("dependencies", queue.name(), parentId, type, Long.toString(range[0]),
                Long.toString(range[1]));
        io.bull4j.JobDependencies.Page page = queue.getDependencies(parentId, type.equals("processed")
                ? io.bull4j.JobDependencies.Kind.PROCESSED : io.bull4j.JobDependencies.Kind.PENDING, range[0], range[1]);
        var items = JSON.createArrayNode();
        var jobs = JSON.createArrayNode();
        for (io.bull4j.JobDependencies.Item item : page.items()) {
            var o = items.addObject().put("id", item.key());
            if (item.value() != null) {
                o.set("v", parse(item.value()));
            }
            // bullmq reads a gone child's hash as empty fields (data '{}'); none is gone here
            io.bull4j.Job j = item.job();
            jobs.addObject().put("name", j.name()).put("data", j.dataJson()).put("parentKey", j.parentKey());
        }
        var java = JSON.createObjectNode();
        java.set("items", items);
        java.set("jobs", jobs);
        java.put("total", page.total());
        // through JSON text, so that numbers compare by value and not by Java type
        assertEquals(node, parse(java.toString()), type + " " + range[0] + ".." + range[1] + " of " + parentId);
    }
}
