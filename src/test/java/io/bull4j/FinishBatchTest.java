package io.bull4j;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A worker with concurrency above 1 sends the finishes that are ready together in one call (FinishBatcher and
 * lua/moveManyToFinished.lua): fewer script calls than jobs, the same Redis state and events per job as finishing
 * one at a time, and a refusal (a lost lock) that stays with its own job.
 */
class FinishBatchTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int JOBS = 200;

    /** Completes "ok*" jobs with a value from their data, fails the others. */
    private static final Processor BY_NAME = job -> {
        if (job.name().startsWith("ok")) {
            return Map.of("data", job.dataJson(), "name", job.name());
        }
        throw new IllegalStateException("no " + job.dataJson());
    };

    private static void addJobs(Queue queue) {
        List<BulkJob> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobs.add(BulkJob.of(i % 7 == 3 ? "bad" + i : "ok" + i, Map.of("n", i), JobOptions.builder()
                    .attempts(1).build()));
        }
        queue.addBulk(jobs);
    }

    /** Runs the jobs with the given concurrency; returns the script calls made while they ran. */
    private static long runAll(String q, int concurrency) throws Exception {
        try (Queue queue = new Queue(q, queueOptions())) {
            addJobs(queue);
            long before = scriptCalls();
            Worker worker = new Worker(q, BY_NAME, workerOptions().concurrency(concurrency).name("w").metrics(10)
                    .build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) + redis().zcard(key(q, "failed")) == JOBS,
                        "all finished");
                return scriptCalls() - before;
            } finally {
                worker.close();
            }
        }
    }

    /** A job's hash without the times (and the stack's frames: only whether it has one). */
    private static Map<String, String> comparable(String q, String id) {
        Map<String, String> f = new LinkedHashMap<>(hash(q, id));
        for (String time : List.of("timestamp", "processedOn", "finishedOn")) {
            assertNotNull(f.remove(time), id + " has " + time);
        }
        if (f.containsKey("stacktrace")) {
            f.put("stacktrace", json(f.get("stacktrace")).size() + " entries");
        }
        return f;
    }

    /** The queue's key names without its prefix. */
    private static Set<String> keyNames(String q) {
        String prefix = key(q, "");
        return redis().keys(prefix + "*").stream().map(k -> k.substring(prefix.length()))
                .collect(java.util.stream.Collectors.toSet());
    }

    private static Set<String> withoutMinuteLists(Set<String> names) {
        return names.stream().filter(n -> !(n.startsWith("metrics:") && n.endsWith(":data")))
                .collect(java.util.stream.Collectors.toSet());
    }

    private static List<Map<String, String>> jobEvents(String q, String id) {
        return events(q).stream().filter(e -> id.equals(e.get("jobId"))).toList();
    }

    @Test
    void concurrentFinishesShareCallsAndLeaveWhatSingleFinishesLeave() throws Exception {
        String single = queueName("fbone");
        String batched = queueName("fbmany");
        // at concurrency 100, whole batches (MoveManyToFinished.MAX) wait at once: several calls go in flight (its
        // call count is printed only: its first 100 jobs are fetched one call each)
        String wide = queueName("fbwide");
        long singleCalls = runAll(single, 1);
        long batchedCalls = runAll(batched, 10);
        long wideCalls = runAll(wide, 100);
        System.out.println("FinishBatchTest: script calls for " + JOBS + " jobs: concurrency 1 " + singleCalls
                + ", concurrency 10 " + batchedCalls + ", concurrency 100 " + wideCalls);
        // one at a time, every job takes at least its own finish call; batched, finishes share calls
        assertTrue(singleCalls >= JOBS, "concurrency 1: " + singleCalls);
        assertTrue(batchedCalls < JOBS * 3 / 4, "concurrency 10: " + batchedCalls + " script calls for " + JOBS
                + " jobs");
        assertLeaveTheSame(single, batched);
        assertLeaveTheSame(single, wide);
    }

    private static void assertLeaveTheSame(String single, String batched) {
        for (String set : List.of("completed", "failed")) {
            assertEquals(Set.copyOf(redis().zrange(key(single, set), 0, -1)),
                    Set.copyOf(redis().zrange(key(batched, set), 0, -1)), set);
        }
        assertEquals(JOBS / 7 + (JOBS % 7 > 3 ? 1 : 0), redis().zcard(key(batched, "failed")));
        for (int i = 1; i <= JOBS; i++) {
            String id = Integer.toString(i);
            assertEquals(comparable(single, id), comparable(batched, id), "job " + id);
            assertEquals(jobEvents(single, id), jobEvents(batched, id), "events of job " + id);
        }
        assertEquals(0, redis().llen(key(batched, "active")));
        // the same keys (no lock left behind by the batch's one DEL), the same stalled set and ready marker; a
        // metrics ":data" list appears when a run crosses a minute on the clock, which the two runs may not both do
        assertEquals(withoutMinuteLists(keyNames(single)), withoutMinuteLists(keyNames(batched)));
        assertEquals(redis().zrange(key(single, "marker"), 0, -1), redis().zrange(key(batched, "marker"), 0, -1));
        assertEquals(redis().smembers(key(single, "stalled")), redis().smembers(key(batched, "stalled")));
        for (String type : List.of("completed", "failed")) {
            assertEquals(redis().hget(key(single, "metrics:" + type), "count"),
                    redis().hget(key(batched, "metrics:" + type), "count"), "metrics " + type);
        }
    }

    /** What a batch of held jobs left: the ids completed, and the errors the worker reported. */
    private record Held(Set<String> completed, List<Throwable> errors, int failedCalls, long scriptCalls) {
    }

    /**
     * Runs n jobs (ids "1".."n", the one with id dedupId deduplicated by id "d") at concurrency n, holds them all
     * in the processor, lets {@code sabotage} act, then releases them together and waits for n - 1 completions and
     * an error.
     */
    private static Held holdAndRelease(String q, int n, String dedupId, Runnable sabotage) throws Exception {
        CountDownLatch started = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        Processor held = job -> {
            started.countDown();
            assertTrue(go.await(20, TimeUnit.SECONDS));
            return "done " + job.id();
        };
        Set<String> completed = ConcurrentHashMap.newKeySet();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger failedCalls = new AtomicInteger();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                completed.add(job.id());
            }

            @Override
            public void onFailed(Job job, Throwable error) {
                failedCalls.incrementAndGet();
            }

            @Override
            public void onError(Throwable error) {
                errors.add(error);
            }
        };
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 1; i <= n; i++) {
                queue.add("j" + i, Map.of(), Integer.toString(i).equals(dedupId)
                        ? JobOptions.builder().deduplication(Deduplication.of("d")).build() : null);
            }
            Worker worker = new Worker(q, held, workerOptions().concurrency(n).build(), listener);
            try {
                assertTrue(started.await(20, TimeUnit.SECONDS), "all running");
                sabotage.run();
                long before = scriptCalls();
                go.countDown();
                eventually(WAIT, () -> completed.size() == n - 1 && !errors.isEmpty(), "batch-mates done");
                long calls = scriptCalls() - before;
                System.out.println("FinishBatchTest: " + n + " finishes released together took " + calls
                        + " script calls");
                return new Held(completed, errors, failedCalls.get(), calls);
            } finally {
                go.countDown();
                worker.close();
            }
        }
    }

    /**
     * Whether n finishes released together share calls depends on thread wake-ups: on a loaded machine each may
     * reach the batcher after the previous call answered. So a scenario runs again (a fresh queue each time, every
     * run checked in full) until one run shared calls, at most ATTEMPTS times.
     */
    private static final int ATTEMPTS = 5;

    /** One run of a scenario (its attempt number given): true when its finishes shared a call. */
    private interface Scenario {
        boolean run(int attempt) throws Exception;
    }

    private static void untilShared(Scenario scenario) throws Exception {
        for (int attempt = 1; !scenario.run(attempt); attempt++) {
            System.out.println("FinishBatchTest: no shared call in run " + attempt + ", again");
        }
    }

    private static boolean shared(Held h, int n, int attempt) {
        assertTrue(h.scriptCalls < n || attempt < ATTEMPTS,
                "finishes never shared a call in " + ATTEMPTS + " runs; the last took " + h.scriptCalls + " for " + n);
        return h.scriptCalls < n;
    }

    // at 40, each completion's answer is handled by whichever processor thread is free (JobRunner.FinishAnswer)
    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {10, 40})
    void aStolenLockFailsOnlyItsJobWhileItsBatchMatesComplete(int n) throws Exception {
        untilShared(attempt -> stolenLockRun(n, attempt));
    }

    private static boolean stolenLockRun(int n, int attempt) throws Exception {
        String q = queueName("fbsteal");
        String stolen = "4";
        Held h = holdAndRelease(q, n, null, () -> redis().set(key(q, stolen + ":lock"), "another-worker"));
        try {
            assertFalse(h.completed.contains(stolen));
            assertEquals(1, h.errors.size(), h.errors.toString());
            JobException e = assertInstanceOf(JobException.class, h.errors.get(0));
            assertEquals(JobException.Reason.LOCK_MISMATCH, e.reason());
            assertEquals(stolen, e.jobId());
            assertEquals(0, h.failedCalls);
            // the refused finish wrote nothing: the job is still active under the other lock
            assertEquals(List.of(stolen), redis().lrange(key(q, "active"), 0, -1));
            assertEquals("another-worker", redis().get(key(q, stolen + ":lock")));
            assertNull(hash(q, stolen).get("finishedOn"));
            assertEquals(List.of("added", "waiting", "active"), eventNames(q, stolen));
            assertEquals(n - 1, redis().zcard(key(q, "completed")));
            for (String id : h.completed) {
                assertEquals("\"done " + id + "\"", hash(q, id).get("returnvalue"));
                assertEquals(1, events(q, "completed", id).size());
            }
        } finally {
            redis().del(key(q, stolen + ":lock"));
        }
        return shared(h, n, attempt);
    }

    /** A finish that raises a Redis error in the script is reported for its job alone; the others complete. */
    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {10, 40})
    void aFinishThatErrsInTheScriptLeavesItsBatchMatesComplete(int n) throws Exception {
        untilShared(attempt -> erringFinishRun(n, attempt));
    }

    private static boolean erringFinishRun(int n, int attempt) throws Exception {
        String q = queueName("fberr");
        String broken = "6";
        // the deduplication key turned into a hash: releasing it (a GET) raises WRONGTYPE in the finish
        Held h = holdAndRelease(q, n, broken, () -> {
            redis().del(key(q, "de:d"));
            redis().hset(key(q, "de:d"), "not", "a string");
        });
        assertFalse(h.completed.contains(broken));
        assertEquals(1, h.errors.size(), h.errors.toString());
        RedisException e = assertInstanceOf(RedisException.class, h.errors.get(0));
        assertTrue(e.getMessage().contains("WRONGTYPE"), e.getMessage());
        // a batch names the job whose finish erred; the first finish to arrive goes alone, in a call of its own
        boolean inBatch = e.getMessage().contains("of job " + broken + ":");
        assertEquals(0, h.failedCalls);
        assertEquals(n - 1, redis().zcard(key(q, "completed")));
        assertFalse(redis().zrange(key(q, "completed"), 0, -1).contains(broken));
        assertEquals(List.of(), events(q, "completed", broken));
        for (String id : h.completed) {
            assertEquals(1, events(q, "completed", id).size());
        }
        if (!inBatch && attempt < ATTEMPTS) {
            return false; // the broken finish was not among batch-mates: this run did not test the batch
        }
        assertTrue(inBatch, "the broken finish went alone in every run: " + e.getMessage());
        return shared(h, n, attempt);
    }
}
