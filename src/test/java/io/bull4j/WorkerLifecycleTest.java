package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Worker lifecycle: run, pause/resume, drain, close, and concurrency. */
class WorkerLifecycleTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** True once the worker's fetch thread is parked waiting for resume: from then on it cannot fetch. */
    private static boolean fetchParked(String q) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("bull4j-fetch-" + q)) {
                return t.getState() == Thread.State.WAITING && Arrays.stream(t.getStackTrace())
                        .anyMatch(f -> f.getMethodName().equals("awaitResumed"));
            }
        }
        return false;
    }

    /**
     * An unexpected error on the fetch thread (here the executor throws a NoClassDefFoundError, as a library
     * mismatch did on Spring Boot's Lettuce) ends the fetch loop: the worker then says it is not running (Spring's
     * health goes DOWN) and reports the error, where before it looked alive while it took no job.
     */
    @Test
    void aFetchLoopEndedByAnErrorMakesTheWorkerNotRunning() throws Exception {
        String q = queueName("fetch-died");
        java.util.concurrent.ThreadPoolExecutor broken = new java.util.concurrent.ThreadPoolExecutor(1, 1, 1,
                TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>()) {
            @Override
            public void execute(Runnable command) {
                throw new NoClassDefFoundError("io/example/Missing");
            }
        };
        CompletableFuture<Throwable> reported = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("j", Map.of());
            Worker worker = new Worker(q, j -> "done", workerOptions().executor(broken).build(),
                    new WorkerListener() {
                        @Override
                        public void onError(Throwable error) {
                            reported.complete(error);
                        }
                    });
            try {
                assertInstanceOf(NoClassDefFoundError.class, reported.get(15, TimeUnit.SECONDS));
                eventually(WAIT, () -> !worker.isRunning(), "the worker says it is not running");
            } finally {
                worker.close();
                broken.shutdownNow();
            }
        }
    }

    @Test
    void aPeriodicTaskGoesOnAfterAnUnexpectedError() throws Exception {
        // a task scheduled with a fixed delay that throws is never run again (ScheduledExecutorService's contract):
        // a lock renewal stopped so would let every running job's lock expire. The worker's guard keeps it going
        String q = queueName("guarded");
        CompletableFuture<Throwable> reported = new CompletableFuture<>();
        java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor();
        try (Worker worker = new Worker(q, j -> null, workerOptions().autorun(false).build(), new WorkerListener() {
            @Override
            public void onError(Throwable error) {
                reported.complete(error);
            }
        })) {
            java.util.concurrent.atomic.AtomicInteger bare = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger guarded = new java.util.concurrent.atomic.AtomicInteger();
            CountDownLatch guardedAgain = new CountDownLatch(3);
            java.util.concurrent.ScheduledFuture<?> unguarded = timer.scheduleWithFixedDelay(() -> {
                bare.incrementAndGet();
                throw new IllegalStateException("bare");
            }, 0, 10, TimeUnit.MILLISECONDS);
            timer.scheduleWithFixedDelay(worker.guarded(() -> {
                guardedAgain.countDown();
                if (guarded.incrementAndGet() == 1) {
                    throw new IllegalStateException("first tick");
                }
            }, "test task"), 0, 10, TimeUnit.MILLISECONDS);
            assertTrue(guardedAgain.await(10, TimeUnit.SECONDS), "the guarded task ran again after its error");
            assertEquals("first tick", reported.get(10, TimeUnit.SECONDS).getMessage(), "reported to onError");
            assertTrue(unguarded.isDone(), "the unguarded task was stopped by its error");
            assertEquals(1, bare.get());
        } finally {
            timer.shutdownNow();
        }
    }

    private static boolean waitingIn(Thread t, String method) {
        Thread.State state = t.getState();
        return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                && Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method));
    }

    @Test
    void autorunFalseWaitsForRunAndRunTwiceThrows() throws Exception {
        String q = queueName("autorun");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            Worker worker = new Worker(q, j -> "ran", workerOptions().autorun(false).name("w1").build());
            try {
                assertFalse(worker.isRunning());
                assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1));
                worker.run();
                assertTrue(worker.isRunning());
                assertThrows(Bull4jException.class, worker::run);
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
                assertEquals("w1", hash(q, job.id()).get("pb"), "processedBy is the worker's name");
                // the name bullmq's getWorkers() looks for on the blocking connection
                String clientName = "bull:" + java.util.Base64.getEncoder().encodeToString(q.getBytes()) + ":w:w1";
                eventually(WAIT, () -> redis().clientList().contains("name=" + clientName + " "), clientName);
            } finally {
                worker.close();
            }
            assertFalse(worker.isRunning());
            assertThrows(Bull4jException.class, worker::run);
        }
    }

    @Test
    void closingAWorkerThatNeverRanIsPrompt() {
        String q = queueName("neverrun");
        Worker worker = new Worker(q, j -> null, workerOptions().drainDelay(Duration.ofSeconds(5)).autorun(false)
                .build());
        long start = System.nanoTime();
        worker.close();
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < 3_000, "close took " + ms + " ms");
        assertEquals(0, redis().keys(key(q, "*")).size(), "a worker that never ran wrote nothing");
    }

    @Test
    void pauseStopsTakingJobsAndResumeTakesThemAgain() throws Exception {
        String q = queueName("pause");
        try (Queue queue = new Queue(q, queueOptions())) {
            Worker worker = new Worker(q, j -> "ok", workerOptions().build());
            try {
                worker.pause();
                assertTrue(worker.isPaused());
                eventually(WAIT, () -> fetchParked(q), "fetch loop parked");
                Job job = queue.add("j", Map.of());
                assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1), "not taken while paused");
                assertTrue(fetchParked(q));
                worker.resume();
                assertFalse(worker.isPaused());
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void pauseWhileEverySlotIsBusyTakesNoMoreJobs() throws Exception {
        String q = queueName("pausebusy");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("first", Map.of());
            Job second = queue.add("second", Map.of());
            Worker worker = new Worker(q, j -> {
                started.countDown();
                return gate.await(10, TimeUnit.SECONDS);
            }, workerOptions().concurrency(1).build());
            try {
                assertTrue(started.await(10, TimeUnit.SECONDS));
                worker.pause(); // the fetch loop is waiting for the busy slot now
                gate.countDown();
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), first.id()) != null, "first completed");
                eventually(WAIT, () -> fetchParked(q), "fetch loop parked");
                assertEquals(List.of(second.id()), redis().lrange(key(q, "wait"), 0, -1), "taken while paused");
                assertNull(hash(q, second.id()).get("processedOn"));
                worker.resume();
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), second.id()) != null, "second completed");
            } finally {
                gate.countDown();
                worker.close();
            }
        }
    }

    @Test
    void drainReportsFinishedRunningAndTimeout() throws Exception {
        String q = queueName("drain");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            Worker worker = new Worker(q, j -> {
                started.countDown();
                return gate.await(10, TimeUnit.SECONDS);
            }, workerOptions().build());
            try {
                assertTrue(started.await(10, TimeUnit.SECONDS));
                DrainResult timedOut = worker.drain(Duration.ofMillis(300));
                assertTrue(timedOut.timedOut(), timedOut.toString());
                assertEquals(1, timedOut.stillRunning());
                assertEquals(0, timedOut.finished());

                // release the job only once the second drain waits for it, so that it finishes during that drain
                // (released first, it could finish before drain() counts, and be missing from its result)
                CompletableFuture<DrainResult> draining = new CompletableFuture<>();
                Thread t = new Thread(() -> draining.complete(worker.drain(Duration.ofSeconds(10))), "drainer");
                t.start();
                eventually(WAIT, () -> waitingIn(t, "awaitIdle"), "drain waiting for the running job");
                gate.countDown();
                DrainResult done = draining.get(15, TimeUnit.SECONDS);
                assertFalse(done.timedOut(), done.toString());
                assertEquals(0, done.stillRunning());
                assertEquals(1, done.finished());
                assertNotNull(redis().zscore(key(q, "completed"), job.id()));

                assertTrue(worker.isPaused(), "a drained worker stays paused");
                eventually(WAIT, () -> fetchParked(q), "fetch loop parked");
                Job next = queue.add("next", Map.of());
                assertEquals(List.of(next.id()), redis().lrange(key(q, "wait"), 0, -1));
                worker.resume();
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), next.id()) != null, "next completed");
            } finally {
                gate.countDown();
                worker.close();
            }
        }
    }
}
