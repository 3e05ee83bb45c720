package io.bull4j;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A drained worker waits on the marker; when the marker wakes it, it fetches. A pause that lands around that wake-up
 * must never leave a job active under a lock no one renews: every job added to a drained worker that is paused at
 * once, then resumed, runs once, long before the lock (30 s) or the stalled check could recover it; and the blocking
 * call that the pause cuts is not reported as an error, even when the resume comes first. (Written for a
 * fetch sent by the marker's reply on the I/O thread, which failed it when that fetch's job was not handed back;
 * that change was measured and not kept, see docs/benchmarks.md.)
 */
class PauseAtWakeUpTest {
    @Test
    void aPauseRightAfterTheMarkerWakesTheWorkerLosesNoJob() throws Exception {
        String q = queueName("pausewake");
        int rounds = 40;
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        WorkerListener onError = new WorkerListener() {
            @Override
            public void onError(Throwable error) {
                errors.add(error);
            }
        };
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
                 return null;
             }, workerOptions().concurrency(1).build(), onError)) {
            for (int i = 0; i < rounds; i++) {
                // drained: the worker waits on the marker (its last fetch found nothing)
                eventually(Duration.ofSeconds(10), () -> redis().llen(key(q, "wait")) == 0
                        && redis().llen(key(q, "active")) == 0, "drained before round");
                String id = queue.add("j", Map.of("i", i)).id();
                worker.pause(); // lands before, during or after the wake-up and its fetch
                worker.resume();
                eventually(Duration.ofSeconds(5), () -> runs.containsKey(id), "job " + id + " ran after resume");
            }
            eventually(Duration.ofSeconds(5), () -> redis().zcard(key(q, "completed")) == rounds, "all completed");
            assertEquals(0, redis().llen(key(q, "active")));
            assertEquals(Set.of(1), Set.copyOf(runs.values().stream().map(AtomicInteger::get).toList()),
                    "each job ran once: " + runs);
            assertEquals(List.of(), errors, "a pause is no fetch error");
        }
    }

    /**
     * Two drained workers wait on the marker, and the one that the marker wakes is paused at that moment: the
     * wake-up it took is handed on, so the other worker runs the job at once, not after its drainDelay (60 s here)
     * as it would if the paused worker had swallowed the marker, whether the pause came after its blocking call's
     * answer or cut that answer short.
     */
    @Test
    void aWorkerPausedAsItWakesHandsTheWakeUpOn() throws Exception {
        String q = queueName("pausehand");
        int rounds = 30;
        Map<String, String> ranBy = new ConcurrentHashMap<>();
        WorkerOptions opts = workerOptions().concurrency(1).drainDelay(Duration.ofSeconds(60)).build();
        try (Queue queue = new Queue(q, queueOptions());
             Worker a = new Worker(q, job -> {
                 ranBy.put(job.id(), "a");
                 return null;
             }, opts);
             Worker b = new Worker(q, job -> {
                 ranBy.put(job.id(), "b");
                 return null;
             }, opts)) {
            for (int i = 0; i < rounds; i++) {
                // both drained, both blocked on the marker
                eventually(Duration.ofSeconds(10), () -> redis().llen(key(q, "wait")) == 0
                        && redis().llen(key(q, "active")) == 0 && blockedOnMarker(q) == 2, "both waiting");
                Worker paused = i % 2 == 0 ? a : b;
                String id = queue.add("j", Map.of("i", i)).id();
                paused.pause();
                eventually(Duration.ofSeconds(5), () -> ranBy.containsKey(id),
                        "job " + id + " ran while one worker was paused (round " + i + ")");
                paused.resume();
            }
        }
    }

    /**
     * The same with a manual worker ({@code getNextJob(token, true)}) as the one paused as it wakes: its wake-up
     * too is handed on to the other worker, which runs the job at once.
     */
    @Test
    void aManualWorkerPausedAsItWakesHandsTheWakeUpOn() throws Exception {
        String q = queueName("pausehand-manual");
        int rounds = 30;
        Map<String, String> ranBy = new ConcurrentHashMap<>();
        WorkerOptions opts = workerOptions().concurrency(1).drainDelay(Duration.ofSeconds(60)).build();
        try (Queue queue = new Queue(q, queueOptions());
             Worker manual = new Worker(q, opts);
             Worker b = new Worker(q, job -> {
                 ranBy.put(job.id(), "b");
                 return null;
             }, opts)) {
            for (int i = 0; i < rounds; i++) {
                java.util.concurrent.CompletableFuture<Job> taken = java.util.concurrent.CompletableFuture
                        .supplyAsync(() -> manual.getNextJob("manual-token", true));
                eventually(Duration.ofSeconds(10), () -> redis().llen(key(q, "wait")) == 0
                        && redis().llen(key(q, "active")) == 0 && blockedOnMarker(q) == 2, "both waiting");
                String id = queue.add("j", Map.of("i", i)).id();
                manual.pause();
                Job job = taken.get(10, java.util.concurrent.TimeUnit.SECONDS);
                if (job != null) { // it fetched before the pause: it has the job, and completes it
                    job.moveToCompleted("manual", "manual-token", false);
                    ranBy.put(job.id(), "manual");
                }
                eventually(Duration.ofSeconds(5), () -> ranBy.containsKey(id),
                        "job " + id + " ran while the manual worker was paused (round " + i + ")");
                manual.resume();
            }
        }
    }

    /**
     * pause() on a paused worker does nothing, as BullMQ's: each call closed the worker's named connection and
     * opened a new one on a thread of its own (100 calls, 100 connections opened).
     */
    @Test
    void pausingAPausedWorkerOpensNothing() throws Exception {
        String q = queueName("pause-again");
        String name = "name=bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8)) + " ";
        try (Worker worker = new Worker(q, job -> null, workerOptions().build())) {
            worker.pause();
            eventually(Duration.ofSeconds(10), () -> namedClients(name).size() == 1, "the paused worker listed");
            String id = namedClients(name).get(0).replaceAll(".*\\bid=(\\d+).*", "$1");
            for (int i = 0; i < 20; i++) {
                worker.pause();
            }
            List<String> after = namedClients(name);
            assertEquals(1, after.size(), after.toString());
            assertTrue(after.get(0).contains("id=" + id + " "), "the same connection: " + after);
        }
    }

    private static List<String> namedClients(String name) {
        return redis().clientList().lines().filter(l -> l.contains(name)).toList();
    }

    /** How many of the queue's workers are blocked on its marker (CLIENT LIST: their named connection in BZPOPMIN). */
    private static long blockedOnMarker(String q) {
        String name = "name=bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8)) + " ";
        return redis().clientList().lines().filter(l -> l.contains(name) && l.contains("cmd=bzpopmin")).count();
    }
}
