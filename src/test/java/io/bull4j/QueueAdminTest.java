package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Counts, listings and pause/resume of {@link Queue}, checked on Redis state, the events stream and BullMQ. */
class QueueAdminTest {

    // ---- shared fixtures (also used by QueueAdminCleanTest) ----

    static String key(String q, String suffix) {
        return TestRedis.key(q, suffix);
    }

    /** The events stream as field maps, oldest first. */
    static List<Map<String, String>> events(String q) {
        return TestRedis.stream(q);
    }

    /** The events named {@code name}, oldest first. */
    static List<Map<String, String>> events(String q, String name) {
        return events(q).stream().filter(e -> name.equals(e.get("event"))).toList();
    }

    static Map<String, String> event(String... fieldsAndValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < fieldsAndValues.length; i += 2) {
            m.put(fieldsAndValues[i], fieldsAndValues[i + 1]);
        }
        return m;
    }

    static JobOptions delayed(Duration d) {
        return JobOptions.builder().delay(d).build();
    }

    static JobOptions priority(int p) {
        return JobOptions.builder().priority(p).build();
    }

    /**
     * Runs a worker until {@code total} jobs finished: jobs named "bad" fail (one attempt), others complete.
     * Call it when only the jobs to finish are waiting.
     */
    static void finishAll(String q, int total) throws Exception {
        CountDownLatch done = new CountDownLatch(total);
        Worker worker = new Worker(q, j -> {
            if (j.name().equals("bad")) {
                throw new IllegalStateException("boom");
            }
            return "ok";
        }, workerOptions().autorun(false).build());
        // listen before it runs, so that no event can be missed
        worker.addListener(new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                done.countDown();
            }

            @Override
            public void onFailed(Job job, Throwable error) {
                done.countDown();
            }
        });
        try {
            worker.run();
            assertTrue(done.await(20, TimeUnit.SECONDS), "jobs did not finish");
        } finally {
            worker.close();
        }
    }

    /**
     * A queue with jobs in most states: completed 1, 2; failed 3; waiting 4, 5; prioritized 6; delayed 7, 8.
     */
    static void fill(Queue queue) throws Exception {
        queue.add("good", Map.of());
        queue.add("good", Map.of());
        queue.add("bad", Map.of());
        finishAll(queue.name(), 3);
        queue.add("w", Map.of());
        queue.add("w", Map.of());
        queue.add("p", Map.of(), priority(3));
        queue.add("d", Map.of(), delayed(Duration.ofHours(1)));
        queue.add("d", Map.of(), delayed(Duration.ofHours(2)));
    }

    static List<String> ids(List<Job> jobs) {
        return jobs.stream().map(Job::id).toList();
    }

    // ---- counts ----

    @Test
    void countsEveryStateInBullmqsOrder() throws Exception {
        String q = queueName("counts");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            Map<JobState, Long> counts = queue.getJobCounts();
            assertEquals(List.of(JobState.ACTIVE, JobState.COMPLETED, JobState.DELAYED, JobState.FAILED,
                    JobState.PRIORITIZED, JobState.WAITING, JobState.WAITING_CHILDREN), List.copyOf(counts.keySet()));
            assertEquals(List.of(0L, 2L, 2L, 1L, 1L, 2L, 0L), List.copyOf(counts.values()));
            assertEquals(Map.of(JobState.FAILED, 1L, JobState.WAITING, 2L),
                    queue.getJobCounts(JobState.FAILED, JobState.WAITING, JobState.FAILED));
            assertEquals(2 + 2 + 1, queue.count());

            // a job parked in the legacy paused list by an old BullMQ counts as paused, as BullMQ counts it
            redis().hset(key(q, "legacy"), Map.of("name", "old", "data", "{}", "opts", "{}", "timestamp", "1"));
            redis().lpush(key(q, "paused"), "legacy");
            // and a legacy "0:" delay marker at the tail of wait is not a job
            redis().rpush(key(q, "wait"), "0:123");
            assertEquals(Map.of(JobState.WAITING, 2L, JobState.PAUSED, 1L),
                    queue.getJobCounts(JobState.WAITING, JobState.PAUSED));
            assertFalse(queue.getJobCounts().containsKey(JobState.PAUSED), "not among the default states");
            assertEquals(List.of("legacy"), ids(queue.getJobs(JobState.PAUSED)));
            assertFalse(ids(queue.getJobs(JobState.WAITING)).contains("legacy"));
            assertEquals(JobState.WAITING, queue.getJob("legacy").getState(), "its state is waiting, as in BullMQ");
            assertEquals(5, queue.count(), "BullMQ's count() leaves the paused list out");
        }
    }

    @Test
    void countsEqualWhatBullmqReports() throws Exception {
        NodeBullmq.assumeAvailable();
        String q = queueName("countsnode");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            JsonNode node = NodeBullmq.runOne(Duration.ofSeconds(30), "counts", RedisTestServer.get().uri(), q);
            Map<String, Long> theirs = new LinkedHashMap<>();
            node.fields().forEachRemaining(e -> theirs.put(e.getKey(), e.getValue().asLong()));
            Map<String, Long> ours = new LinkedHashMap<>();
            queue.getJobCounts().forEach((s, n) -> ours.put(s.wireName(), n));
            assertEquals(theirs, ours);
        }
    }

    // ---- listings ----

    @Test
    void getJobsOrdersListsNewestFirstAndRangesLikeBullmq() throws Exception {
        String q = queueName("getjobs");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 4; i++) {
                queue.add("w" + i, Map.of("i", i));
            }
            assertEquals(List.of("4", "3", "2", "1"), ids(queue.getJobs(JobState.WAITING)));
            assertEquals(List.of("1", "2", "3", "4"), ids(queue.getJobs(Set.of(JobState.WAITING), 0, -1, true)));
            assertEquals(List.of("4", "3"), ids(queue.getJobs(Set.of(JobState.WAITING), 0, 1, false)));
            assertEquals(List.of("1", "2"), ids(queue.getJobs(Set.of(JobState.WAITING), 0, 1, true)));
            assertEquals(List.of("2", "1"), ids(queue.getJobs(Set.of(JobState.WAITING), -2, -1, false)));
            assertEquals(List.of(), ids(queue.getJobs(Set.of(JobState.WAITING), 10, 12, true)));

            Job first = queue.getJobs(Set.of(JobState.WAITING), 0, 0, true).get(0);
            assertEquals("w0", first.name());
            assertEquals(Map.of("i", 0), first.data());

            // a hash removed behind the list's back is skipped and the page refilled from the next ids
            redis().del(key(q, "3"));
            assertEquals(List.of("4", "2"), ids(queue.getJobs(Set.of(JobState.WAITING), 0, 1, false)));
            assertEquals(List.of("1", "2"), ids(queue.getJobs(Set.of(JobState.WAITING), 0, 1, true)));
        }
    }

    @Test
    void getJobsWalksStatesInTheGivenOrderAndSortsSetsByScore() throws Exception {
        String q = queueName("getjobs2");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            // delayed by due time, latest first; finished by finish time; states in the order asked
            assertEquals(List.of("8", "7"), ids(queue.getJobs(JobState.DELAYED)));
            assertEquals(List.of("7", "8"), ids(queue.getJobs(Set.of(JobState.DELAYED), 0, -1, true)));
            assertEquals(List.of("3", "6", "5", "4"),
                    ids(queue.getJobs(JobState.FAILED, JobState.PRIORITIZED, JobState.WAITING)));
            // a set with an order of its own is walked in it; one without (Set.of's changes from one JVM run to the
            // next) in the order of a call that names no state
            assertEquals(List.of("3", "6", "5", "4"), ids(queue.getJobs(new java.util.LinkedHashSet<>(
                    List.of(JobState.FAILED, JobState.PRIORITIZED, JobState.WAITING)), 0, -1, false)));
            for (Set<JobState> unordered : List.of(Set.of(JobState.WAITING, JobState.PRIORITIZED, JobState.FAILED),
                    new java.util.HashSet<>(List.of(JobState.WAITING, JobState.PRIORITIZED, JobState.FAILED)))) {
                assertEquals(List.of("3", "6", "5", "4"), ids(queue.getJobs(unordered, 0, -1, false)));
            }
            // a view of an ordered set keeps its order
            assertEquals(List.of("5", "4", "6", "3"), ids(queue.getJobs(java.util.Collections.unmodifiableSet(
                    new java.util.LinkedHashSet<>(List.of(JobState.WAITING, JobState.PRIORITIZED, JobState.FAILED))),
                    0, -1, false)));
            // no state named: every state, BullMQ's order (active, completed, delayed, failed, prioritized, waiting)
            List<String> all = ids(queue.getJobs());
            assertEquals(8, all.size());
            assertEquals(List.of("8", "7", "3", "6", "5", "4"), all.subList(2, 8));
            assertTrue(Set.of("1", "2").containsAll(all.subList(0, 2)));
            assertEquals("boom", queue.getJobs(JobState.FAILED).get(0).failedReason());
        }
    }

    // ---- pause / resume ----

    @Test
    void pauseAndResumeWriteMetaMarkerAndEvents() throws Exception {
        String q = queueName("pause");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("w", Map.of());
            assertEquals(1L, redis().zcard(key(q, "marker")));
            assertFalse(queue.isPaused());

            queue.pause();
            assertTrue(queue.isPaused());
            assertEquals("1", redis().hget(key(q, "meta"), "paused"));
            assertEquals(0L, redis().exists(key(q, "marker")));
            // an add while paused leaves no marker
            queue.add("w2", Map.of());
            assertEquals(0L, redis().exists(key(q, "marker")));

            queue.resume();
            assertFalse(queue.isPaused());
            assertFalse(redis().hexists(key(q, "meta"), "paused"));
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
            assertEquals(List.of(event("event", "paused"), event("event", "resumed")),
                    events(q).stream().filter(e -> e.get("event").matches("paused|resumed")).toList());
        }
    }

    @Test
    void resumeWithOnlyDelayedJobsSetsTheDelayMarker() throws Exception {
        String q = queueName("pausedelay");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("d", Map.of(), delayed(Duration.ofMinutes(5)));
            queue.pause();
            queue.resume();
            long due = job.timestamp().toEpochMilli() + Duration.ofMinutes(5).toMillis();
            assertEquals(List.of("1"), redis().zrange(key(q, "marker"), 0, -1));
            assertEquals((double) due, redis().zscore(key(q, "marker"), "1"));
        }
    }

    @Test
    void resumeMovesTheLegacyPausedListBackToWait() throws Exception {
        String q = queueName("pauselegacy");
        try (Queue queue = new Queue(q, queueOptions())) {
            // wait absent: the legacy list is renamed
            redis().lpush(key(q, "paused"), "a", "b");
            queue.pause();
            queue.resume();
            assertEquals(List.of("b", "a"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0L, redis().exists(key(q, "paused")));

            // wait present: parked jobs go to its consuming end, so they run first, oldest first
            queue.pause();
            String[] many = new String[7500];
            for (int i = 0; i < many.length; i++) {
                many[i] = "p" + i;
            }
            redis().lpush(key(q, "paused"), many);
            queue.resume();
            assertEquals(0L, redis().exists(key(q, "paused")));
            assertEquals(7502L, redis().llen(key(q, "wait")));
            assertEquals(List.of("b", "a"), redis().lrange(key(q, "wait"), 0, 1));
            assertEquals("p0", redis().lindex(key(q, "wait"), -1));
            assertEquals("p7499", redis().lindex(key(q, "wait"), 2));
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
        }
    }

    @Test
    void workerTakesNothingFromAPausedQueueUntilResumed() throws Exception {
        String q = queueName("pauseworker");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.pause();
            Job job = queue.add("w", Map.of());
            CompletableFuture<Void> drained = new CompletableFuture<>();
            CompletableFuture<String> completed = new CompletableFuture<>();
            Worker worker = new Worker(q, j -> "done", workerOptions().autorun(false).build());
            worker.addListener(new WorkerListener() {
                @Override
                public void onDrained() {
                    drained.complete(null);
                }

                @Override
                public void onCompleted(Job j, Object result) {
                    completed.complete(j.id());
                }
            });
            try {
                worker.run();
                // the worker looked and found nothing to take: the job is still waiting, never started
                await(drained);
                assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1));
                assertEquals(0L, redis().llen(key(q, "active")));
                assertNull(redis().hget(key(q, job.id()), "processedOn"));
                assertFalse(completed.isDone());

                queue.resume();
                assertEquals(job.id(), await(completed));
            } finally {
                worker.close();
            }
            assertNotNull(redis().zscore(key(q, "completed"), job.id()));
            List<String> names = events(q).stream().map(e -> e.get("event")).toList();
            assertTrue(names.indexOf("resumed") < names.indexOf("active"), names.toString());
        }
    }

    // ---- validation ----

    @Test
    void badArgumentsAreRejectedNamingTheFieldBeforeAnyWrite() throws Exception {
        String q = queueName("adminbad");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("w", Map.of());
            int eventsBefore = events(q).size();
            assertField("states", () -> queue.getJobCounts(JobState.UNKNOWN));
            assertField("states", () -> queue.getJobCounts((JobState[]) null));
            assertField("states", () -> queue.getJobs(JobState.WAITING, null));
            assertField("states", () -> queue.getJobs(null, 0, -1, false));
            assertField("jobId", () -> queue.remove(""));
            assertField("jobId", () -> queue.remove(null));
            assertField("grace", () -> queue.clean(Duration.ofSeconds(-1), 0, JobState.COMPLETED));
            assertField("grace", () -> queue.clean(null, 0, JobState.COMPLETED));
            assertField("limit", () -> queue.clean(Duration.ZERO, -1, JobState.COMPLETED));
            assertField("state", () -> queue.clean(Duration.ZERO, 0, JobState.UNKNOWN));
            assertField("state", () -> queue.clean(Duration.ZERO, 0, null));
            assertField("state", () -> queue.retryJobs(JobState.WAITING));
            assertField("count", () -> queue.retryJobs(JobState.FAILED, 0, java.time.Instant.now()));
            assertField("timestamp", () -> queue.retryJobs(JobState.FAILED, 10, null));
            assertField("count", () -> queue.promoteJobs(0));
            // nothing reached Redis: no cleaned/removed event, the job still waits
            assertEquals(eventsBefore, events(q).size());
            assertEquals(List.of("1"), redis().lrange(key(q, "wait"), 0, -1));
        }
    }

    static void assertField(String field, org.junit.jupiter.api.function.Executable call) {
        ValidationException e = assertThrows(ValidationException.class, call);
        assertEquals(field, e.field());
    }
}
