package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Reading flows: getFlow trees, a parent's dependencies and counts, a child's parent, the queue getters. */
class FlowReadTest {

    private static Set<String> ids(List<JobNode> nodes) {
        return nodes.stream().map(n -> n.job().id()).collect(Collectors.toSet());
    }

    @Test
    void getFlowReadsTheTreeBackDownToTheDepthAsked() throws Exception {
        String qa = queueName("read-a");
        String qb = queueName("read-b");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue a = new Queue(qa, queueOptions())) {
            flows.add(FlowJob.builder("root", qa).options(JobOptions.builder().jobId("R").build())
                    .child(FlowJob.builder("mid", qb).options(JobOptions.builder().jobId("M").build())
                            .child(FlowJob.builder("leaf", qb).options(JobOptions.builder().jobId("L1")
                                            .delay(Duration.ofHours(1)).build())
                                    .build())
                            .build())
                    .child(FlowJob.builder("done", qb).options(JobOptions.builder().jobId("D").build()).build())
                    .child(FlowJob.builder("bad", qb).options(JobOptions.builder().jobId("X")
                            .ignoreDependencyOnFailure(true).build()).build())
                    .build());
            Worker w = new Worker(qb, job -> {
                if (job.id().equals("X")) {
                    throw new IllegalStateException("nope");
                }
                return "v" + job.id();
            }, workerOptions().build());
            try {
                eventually(Duration.ofSeconds(20), () -> redis().zscore(key(qb, "completed"), "D") != null
                        && redis().zscore(key(qb, "failed"), "X") != null, "children done");
            } finally {
                w.close();
            }
            JobNode root = flows.getFlow("R", qa);
            assertEquals("R", root.job().id());
            assertEquals(Set.of("M", "D", "X"), ids(root.children()));
            JobNode mid = root.children().stream().filter(n -> n.job().id().equals("M")).findFirst().get();
            assertEquals(Set.of("L1"), ids(mid.children()));
            assertEquals(qb, mid.job().queueName());
            assertEquals(ParentRef.of("R", "bull:" + qa), mid.job().parent());
            assertEquals("bull:" + qa + ":R", mid.job().parentKey());
            assertTrue(flows.getFlow("R", qa, 1, 20).children().isEmpty(), "depth 1: the root alone");
            assertEquals(3, flows.getFlow("R", qa, 2, 1).children().size(), "one child of each kind (processed, pending, ignored)");
            assertNull(flows.getFlow("nope", qa));

            Job r = a.getJob("R");
            JobDependencies d = r.getDependencies();
            assertEquals(Map.of("bull:" + qb + ":D", "\"vD\""), d.processed());
            assertEquals(List.of("bull:" + qb + ":M"), d.unprocessed());
            assertEquals(Map.of("bull:" + qb + ":X", "nope"), d.ignored());
            assertEquals(List.of(), d.failed());
            assertEquals(new JobDependencies.Counts(1, 1, 1, 0), r.getDependenciesCount());
            assertEquals(Map.of("bull:" + qb + ":D", "vD"), r.getChildrenValues(String.class));
            assertEquals(Map.of("bull:" + qb + ":X", "nope"), r.getFailedChildrenValues());
            assertNull(r.parent());
            assertNull(r.parentKey());

            assertEquals(1, a.getWaitingChildrenCount());
            assertEquals(List.of("R"), a.getWaitingChildren(0, -1).stream().map(Job::id).collect(Collectors.toList()));
        }
    }

    @Test
    void aNodeWithItsOwnPrefixIsStoredAndReadUnderIt() {
        // the least-privilege user of docs/operations.md may touch only the bull: prefix
        org.junit.jupiter.api.Assumptions.assumeFalse(io.bull4j.support.AclUser.enabled(),
                "another prefix is outside the ACL user's keys");
        String q = queueName("read-prefix");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", q).prefix("other").options(JobOptions.builder().jobId("C").build())
                            .build())
                    .build());
            assertEquals("bull:" + q + ":P", redis().hget("other:" + q + ":C", "parentKey"));
            assertEquals(Set.of("other:" + q + ":C"), redis().smembers(key(q, "P") + ":dependencies"));
            JobNode root = flows.getFlow("P", q);
            assertEquals("C", root.children().get(0).job().id());
            assertEquals("other:" + q, root.children().get(0).job().queueQualifiedName());
            redis().del("other:" + q + ":C", "other:" + q + ":id", "other:" + q + ":wait", "other:" + q + ":events",
                    "other:" + q + ":meta", "other:" + q + ":marker");
        }
    }

    @Test
    void getDependenciesPagesThroughPendingAndProcessedChildrenWithTheirJobs() throws Exception {
        String qp = queueName("page-p");
        String qc = queueName("page-c");
        int width = 300; // a set and a hash too large for one scan
        try (FlowProducer flows = new FlowProducer(queueOptions()); Queue parents = new Queue(qp, queueOptions())) {
            FlowJob.Builder root = FlowJob.builder("root", qp).options(JobOptions.builder().jobId("P").build());
            for (int i = 0; i < width; i++) {
                root.child(FlowJob.builder("c", qc).data(Map.of("n", i))
                        .options(JobOptions.builder().jobId("c" + i).build()).build());
            }
            flows.add(root.build());
            Set<String> all = redis().smembers(key(qp, "P") + ":dependencies");

            JobDependencies.Page whole = parents.getDependencies("P", JobDependencies.Kind.PENDING, 0, -1);
            assertEquals(width, whole.total());
            assertEquals(all, whole.items().stream().map(JobDependencies.Item::key).collect(Collectors.toSet()));
            assertEquals(width, whole.items().size(), "no child twice");
            JobDependencies.Item first = whole.items().get(0);
            assertNull(first.value(), "a pending child has no value");
            assertEquals(key(qc, first.job().id()), first.key());
            assertEquals(qc, first.job().queueName());
            assertEquals("bull:" + qp + ":P", first.job().parentKey());

            // consecutive pages are the whole list cut at the same places
            List<String> order = whole.items().stream().map(JobDependencies.Item::key).toList();
            for (long[] r : new long[][] {{0, 9}, {10, 149}, {150, 299}, {290, 400}, {120, 120}}) {
                List<String> page = parents.getDependencies("P", JobDependencies.Kind.PENDING, r[0], r[1]).items()
                        .stream().map(JobDependencies.Item::key).toList();
                assertEquals(order.subList((int) r[0], (int) Math.min(width, r[1] + 1)), page, r[0] + ".." + r[1]);
            }
            assertEquals(List.of(), parents.getDependencies("P", JobDependencies.Kind.PENDING, 300, 310).items());
            assertEquals(0, parents.getDependencies("P", JobDependencies.Kind.PROCESSED, 0, -1).total());

            Worker w = new Worker(qc, job -> "v" + job.id(), workerOptions().concurrency(10).build());
            try {
                eventually(Duration.ofSeconds(30), () -> redis().zcard(key(qc, "completed")) == width,
                        "children completed");
            } finally {
                w.close();
            }
            JobDependencies.Page done = parents.getDependencies("P", JobDependencies.Kind.PROCESSED, 0, -1);
            assertEquals(width, done.total());
            assertEquals(width, done.items().stream().map(JobDependencies.Item::key).distinct().count());
            for (JobDependencies.Item item : done.items()) {
                assertEquals("\"v" + item.job().id() + "\"", item.value());
                assertEquals(JobState.COMPLETED, item.job().getState());
            }
            JobDependencies.Page some = parents.getDependencies("P", JobDependencies.Kind.PROCESSED, 100, 104);
            assertEquals(done.items().subList(100, 105).stream().map(JobDependencies.Item::key).toList(),
                    some.items().stream().map(JobDependencies.Item::key).toList());
            assertEquals(0, parents.getDependencies("P", JobDependencies.Kind.PENDING, 0, -1).total());

            // a child gone since: listed, without job
            redis().del(key(qc, "c7"));
            JobDependencies.Item gone = parents.getDependencies("P", JobDependencies.Kind.PROCESSED, 0, -1).items()
                    .stream().filter(i -> i.key().equals(key(qc, "c7"))).findFirst().orElseThrow();
            assertNull(gone.job());
            assertEquals("\"vc7\"", gone.value());

            JobDependencies.Page none = parents.getDependencies("nope", JobDependencies.Kind.PROCESSED, 0, -1);
            assertEquals(0, none.total());
            assertTrue(none.items().isEmpty());
        }
    }

    @Test
    void getDependenciesRefusesBadArguments() {
        try (Queue q = new Queue(queueName("page-bad"), queueOptions())) {
            assertEquals("parentId", assertThrows(ValidationException.class,
                    () -> q.getDependencies(null, JobDependencies.Kind.PENDING, 0, -1)).field());
            assertEquals("kind", assertThrows(ValidationException.class,
                    () -> q.getDependencies("P", null, 0, -1)).field());
            assertEquals("start", assertThrows(ValidationException.class,
                    () -> q.getDependencies("P", JobDependencies.Kind.PENDING, -1, 5)).field());
            assertEquals("end", assertThrows(ValidationException.class,
                    () -> q.getDependencies("P", JobDependencies.Kind.PENDING, 0, -2)).field());
        }
    }
}
