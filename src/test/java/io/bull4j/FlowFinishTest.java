package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** What a child's end does to its parent: values, release to wait/delayed/prioritized, the failure policies. */
class FlowFinishTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static Worker worker(String q, Processor p) {
        return new Worker(q, p, workerOptions().build());
    }

    private static void closeAll(List<Worker> workers) {
        workers.forEach(Worker::close);
    }

    private static String jobKey(String q, String id) {
        return "bull:" + q + ":" + id;
    }

    @Test
    void threeLevelTreeOverThreeQueuesRunsChildrenFirstAndParentsReadTheirValues() throws Exception {
        String qa = queueName("fin-a");
        String qb = queueName("fin-b");
        String qc = queueName("fin-c");
        Map<String, Object> rootSaw = new ConcurrentHashMap<>();
        List<Worker> workers = new ArrayList<>();
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("root", qa).options(JobOptions.builder().jobId("R").build())
                    .child(FlowJob.builder("mid", qb).data(Map.of("n", 1)).options(JobOptions.builder().jobId("M")
                                    .build())
                            .child(FlowJob.builder("leaf", qc).data(Map.of("n", 10))
                                    .options(JobOptions.builder().jobId("L1").build()).build())
                            .child(FlowJob.builder("leaf", qc).data(Map.of("n", 20))
                                    .options(JobOptions.builder().jobId("L2").build()).build())
                            .build())
                    .child(FlowJob.builder("leaf", qc).data(Map.of("n", 5))
                            .options(JobOptions.builder().jobId("L3").build()).build())
                    .build());
            workers.add(worker(qc, job -> ((Number) ((Map<?, ?>) job.data()).get("n")).intValue() * 2));
            workers.add(worker(qb, job -> {
                int sum = 0;
                for (Integer v : job.getChildrenValues(Integer.class).values()) {
                    sum += v;
                }
                return sum;
            }));
            workers.add(worker(qa, job -> {
                rootSaw.putAll(job.getChildrenValues());
                return "done";
            }));
            eventually(WAIT, () -> redis().zscore(key(qa, "completed"), "R") != null, "root completed");
        } finally {
            closeAll(workers);
        }
        // L1=20, L2=40 -> M=60; L3=10
        assertEquals(Map.of(jobKey(qb, "M"), 60, jobKey(qc, "L3"), 10), rootSaw);
        assertEquals(Map.of(jobKey(qc, "L1"), "20", jobKey(qc, "L2"), "40"), redis().hgetall(key(qb, "M") + ":processed"));
        assertEquals(0, redis().exists(key(qa, "R") + ":dependencies", key(qb, "M") + ":dependencies"),
                "emptied sets are gone");
        assertEquals(List.of("added", "waiting-children", "waiting", "active", "completed"), eventNames(qa, "R"));
        assertEquals("waiting-children", events(qa, "waiting", "R").get(0).get("prev"));
        for (String q : List.of(qa, qb)) {
            assertEquals(0, redis().zcard(key(q, "waiting-children")));
        }
    }

    @Test
    void parentWithDelayIsDelayedWhenItsLastChildCompletes() throws Exception {
        String q = queueName("fin-delay");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").delay(Duration.ofHours(1))
                            .build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build())
                    .build());
            long before = System.currentTimeMillis();
            Worker w = worker(q, job -> "ok");
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "delayed"), "P") != null, "parent delayed");
            } finally {
                w.close();
            }
            long runAt = redis().zscore(key(q, "delayed"), "P").longValue() / 4096;
            assertTrue(runAt >= before + 3_600_000 && runAt <= System.currentTimeMillis() + 3_600_000,
                    "due one hour after the child completed: " + runAt);
            assertEquals(0, redis().zscore(key(q, "delayed"), "P").longValue() % 4096, "seq 0, as BullMQ scores it");
            assertEquals(String.valueOf(runAt), events(q, "delayed", "P").get(0).get("delay"));
        }
    }

    @Test
    void prioritizedParentIsReleasedToPrioritizedWithAMarker() throws Exception {
        String qp = queueName("fin-prio-p");
        String qc = queueName("fin-prio-c");
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").priority(5).build())
                    .child(FlowJob.builder("c", qc).options(JobOptions.builder().jobId("C").build()).build())
                    .build());
            Worker w = worker(qc, job -> "child");
            try {
                eventually(WAIT, () -> redis().zscore(key(qp, "prioritized"), "P") != null, "parent prioritized");
            } finally {
                w.close();
            }
            assertEquals(5L * 4294967296L + 1, redis().zscore(key(qp, "prioritized"), "P").longValue());
            assertEquals(0.0, redis().zscore(key(qp, "marker"), "0"));
            assertEquals("waiting-children", events(qp, "waiting", "P").get(0).get("prev"));
            assertEquals(Map.of(jobKey(qc, "C"), "\"child\""), redis().hgetall(key(qp, "P") + ":processed"));
        }
    }

    @Test
    void failParentOnFailureFailsTheParentAndCascadesToTheGrandparent() throws Exception {
        String qa = queueName("fin-fpof-a");
        String qb = queueName("fin-fpof-b");
        List<Worker> workers = new ArrayList<>();
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("root", qa).options(JobOptions.builder().jobId("R").build())
                    .child(FlowJob.builder("mid", qb).options(JobOptions.builder().jobId("M").failParentOnFailure(true)
                                    .build())
                            .child(FlowJob.builder("bad", qb).options(JobOptions.builder().jobId("B")
                                    .failParentOnFailure(true).build()).build())
                            .child(FlowJob.builder("slow", qb).options(JobOptions.builder().jobId("S").delay(
                                    Duration.ofHours(1)).build()).build())
                            .build())
                    .build());
            workers.add(worker(qb, job -> {
                if (job.id().equals("B")) {
                    throw new IllegalStateException("broken");
                }
                return "ran " + job.id();
            }));
            workers.add(worker(qa, job -> "root ran"));
            eventually(WAIT, () -> redis().zscore(key(qa, "failed"), "R") != null, "root failed");
        } finally {
            closeAll(workers);
        }
        assertEquals("child " + jobKey(qb, "B") + " failed", hash(qb, "M").get("failedReason"));
        assertEquals("child " + jobKey(qb, "M") + " failed", hash(qa, "R").get("failedReason"));
        assertNotNull(redis().zscore(key(qb, "M") + ":unsuccessful", jobKey(qb, "B")));
        assertNotNull(redis().zscore(key(qa, "R") + ":unsuccessful", jobKey(qb, "M")));
        assertEquals(Set.of(jobKey(qb, "S")), redis().smembers(key(qb, "M") + ":dependencies"),
                "the pending sibling stays pending");
        assertNull(hash(qa, "R").get("defa"), "cleared by the failure");
        assertNull(hash(qa, "R").get("returnvalue"), "the root's processor never ran");
    }

    @Test
    void failParentOnFailureReleasesAParentWithADelayToDelayedAsBullmqDoes() throws Exception {
        // docs/flows.md: the failed parent is released as a finished child would release it, so its own delay
        // still applies (BullMQ's moveParentToWait); the deferred failure is recorded when it is taken
        String qa = queueName("fin-fpof-delay-a");
        String qb = queueName("fin-fpof-delay-b");
        long before = System.currentTimeMillis();
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("root", qa).options(JobOptions.builder().jobId("R")
                            .delay(Duration.ofHours(1)).build())
                    .child(FlowJob.builder("bad", qb).options(JobOptions.builder().jobId("B")
                            .failParentOnFailure(true).build()).build())
                    .build());
            Worker w = worker(qb, job -> {
                throw new IllegalStateException("broken");
            });
            try {
                eventually(WAIT, () -> redis().zscore(key(qb, "failed"), "B") != null, "child failed");
            } finally {
                w.close();
            }
        }
        Double score = redis().zscore(key(qa, "delayed"), "R");
        assertNotNull(score, "the parent waits out its delay");
        assertTrue(score / 4096 >= before + Duration.ofHours(1).toMillis(), "due an hour after the failure");
        assertEquals(List.of(), redis().lrange(key(qa, "wait"), 0, -1));
        assertNull(redis().zscore(key(qa, "waiting-children"), "R"));
        assertEquals("child " + jobKey(qb, "B") + " failed", hash(qa, "R").get("defa"));
    }

    @Test
    void continueParentOnFailureStartsTheParentAtOnce() throws Exception {
        String q = queueName("fin-cpof");
        Map<String, Object> saw = new ConcurrentHashMap<>();
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("bad", q).options(JobOptions.builder().jobId("B")
                            .continueParentOnFailure(true).build()).build())
                    .child(FlowJob.builder("slow", q).options(JobOptions.builder().jobId("S")
                            .delay(Duration.ofHours(1)).build()).build())
                    .build());
            Worker w = worker(q, job -> {
                if (job.id().equals("B")) {
                    throw new IllegalStateException("broken");
                }
                saw.put("ignored", job.getIgnoredChildrenFailures());
                saw.put("counts", job.getDependenciesCount());
                return "parent ran";
            });
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), "P") != null
                        || redis().zscore(key(q, "failed"), "P") != null, "parent finished");
            } finally {
                w.close();
            }
        }
        assertEquals(Map.of(jobKey(q, "B"), "broken"), saw.get("ignored"));
        assertEquals(new JobDependencies.Counts(0, 1, 1, 0), saw.get("counts"));
        // completing with a pending child is refused (-4), as in BullMQ: the attempt fails
        assertEquals("Job P has pending dependencies. moveToFinished", hash(q, "P").get("failedReason"));
    }

    @Test
    void ignoreAndRemoveDependencyOnFailureReleaseTheParentOnceTheOthersAreDone() throws Exception {
        for (boolean ignore : new boolean[] {true, false}) {
            String q = queueName(ignore ? "fin-idof" : "fin-rdof");
            Map<String, Object> saw = new ConcurrentHashMap<>();
            JobOptions.Builder bad = JobOptions.builder().jobId("B");
            if (ignore) {
                bad.ignoreDependencyOnFailure(true);
            } else {
                bad.removeDependencyOnFailure(true);
            }
            try (FlowProducer flows = new FlowProducer(queueOptions())) {
                flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                        .child(FlowJob.builder("bad", q).options(bad.build()).build())
                        .child(FlowJob.builder("good", q).options(JobOptions.builder().jobId("G").build()).build())
                        .build());
                Worker w = worker(q, job -> {
                    if (job.id().equals("B")) {
                        throw new IllegalStateException("broken");
                    }
                    if (job.id().equals("P")) {
                        saw.put("values", job.getChildrenValues());
                        saw.put("ignored", job.getIgnoredChildrenFailures());
                    }
                    return "ok " + job.id();
                });
                try {
                    eventually(WAIT, () -> redis().zscore(key(q, "completed"), "P") != null, "parent completed");
                } finally {
                    w.close();
                }
            }
            assertEquals(Map.of(jobKey(q, "G"), "ok G"), saw.get("values"));
            assertEquals(ignore ? Map.of(jobKey(q, "B"), "broken") : Map.of(), saw.get("ignored"));
        }
    }

    @Test
    void withoutPolicyTheParentWaitsUntilTheFailedChildIsRetried() throws Exception {
        String q = queueName("fin-none");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").build()).build())
                    .build());
            boolean[] failNow = {true};
            Worker w = worker(q, job -> {
                if (job.id().equals("C") && failNow[0]) {
                    throw new IllegalStateException("not yet");
                }
                return "ok " + job.id();
            });
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), "C") != null, "child failed");
                assertNotNull(redis().zscore(key(q, "waiting-children"), "P"), "the parent still waits");
                assertEquals(Set.of(jobKey(q, "C")), redis().smembers(key(q, "P") + ":dependencies"));
                failNow[0] = false;
                queue.getJob("C").retry();
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), "P") != null, "parent completed");
            } finally {
                w.close();
            }
            assertEquals(Map.of(jobKey(q, "C"), "ok C"), queue.getJob("P").getChildrenValues());
        }
    }

    @Test
    void aChildRetriedInBulkIsOwedToItsParentAgain() throws Exception {
        // as bullmq 6.7.0's moveJobsToWait (retryJobs) does for each job it retries, like a single retry()
        String q = queueName("fin-bulk-retry");
        String parents = queueName("fin-bulk-retry-p");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            flows.add(FlowJob.builder("p", parents).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").failParentOnFailure(true)
                            .build()).build())
                    .build());
            String parentKey = key(parents, "P");
            Worker w = worker(q, job -> {
                throw new IllegalStateException("down");
            });
            try {
                // the parent is failed by the next worker of its queue (a deferred failure); none runs there
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), "C") != null
                        && redis().zscore(key(parents, "waiting-children"), "P") == null, "the child failed its parent");
            } finally {
                w.close();
            }
            assertEquals(Set.of(), redis().smembers(parentKey + ":dependencies"));
            assertEquals(1, queue.retryJobs(JobState.FAILED));
            assertEquals(Set.of(jobKey(q, "C")), redis().smembers(parentKey + ":dependencies"),
                    "pending for its parent again");
            assertNull(redis().zscore(parentKey + ":unsuccessful", jobKey(q, "C")));
            assertNull(redis().hget(parentKey + ":failed", jobKey(q, "C")));
        }
    }

    @Test
    void childRemovedOnCompleteStillGivesItsValue() throws Exception {
        String q = queueName("fin-roc");
        try (FlowProducer flows = new FlowProducer(queueOptions());
             Queue queue = new Queue(q, queueOptions())) {
            flows.add(FlowJob.builder("p", q).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", q).options(JobOptions.builder().jobId("C").removeOnComplete(true)
                            .build()).build())
                    .build());
            Worker w = worker(q, job -> job.id().equals("C") ? 7 : job.getChildrenValues());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), "P") != null, "parent completed");
            } finally {
                w.close();
            }
            assertEquals(0, redis().exists(key(q, "C")));
            assertEquals("{\"" + jobKey(q, "C") + "\":7}", hash(q, "P").get("returnvalue"));
        }
    }

    @Test
    void aPendingFailedChildTrimmedByRetentionNoLongerHoldsItsParent() throws Exception {
        String qp = queueName("fin-trim-p");
        String qc = queueName("fin-trim-c");
        KeepJobs one = KeepJobs.count(1);
        try (FlowProducer flows = new FlowProducer(queueOptions())) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("bad", qc).options(JobOptions.builder().jobId("A").removeOnFail(one).build())
                            .build())
                    .child(FlowJob.builder("bad", qc).options(JobOptions.builder().jobId("B").removeOnFail(one).build())
                            .build())
                    .build());
            Worker w = worker(qc, job -> {
                throw new IllegalStateException("broke");
            });
            try {
                eventually(WAIT, () -> redis().zscore(key(qc, "failed"), "B") != null, "both children failed");
            } finally {
                w.close();
            }
            // B's failure trimmed A (keep 1): the parent waits for B alone
            assertEquals(0, redis().exists(key(qc, "A")));
            assertEquals(Set.of(key(qc, "B")), redis().smembers(key(qp, "P") + ":dependencies"));
            assertNotNull(redis().zscore(key(qp, "waiting-children"), "P"));

            // a later failure trims B, the parent's last pending child: the parent goes to wait
            try (Queue children = new Queue(qc, queueOptions())) {
                children.add("bad", Map.of(), JobOptions.builder().jobId("C").removeOnFail(one).build());
            }
            Worker w2 = worker(qc, job -> {
                throw new IllegalStateException("broke");
            });
            try {
                eventually(WAIT, () -> redis().zscore(key(qc, "failed"), "C") != null, "C failed");
            } finally {
                w2.close();
            }
            assertEquals(0, redis().exists(key(qc, "B")));
            assertEquals(0, redis().exists(key(qp, "P") + ":dependencies"));
            assertNull(redis().zscore(key(qp, "waiting-children"), "P"));
            assertEquals(List.of("P"), redis().lrange(key(qp, "wait"), 0, -1));
            assertEquals("waiting-children", events(qp, "waiting", "P").get(0).get("prev"));
        }
    }
}
