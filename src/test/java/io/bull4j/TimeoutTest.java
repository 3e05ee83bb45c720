package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Per-job timeouts ({@link JobOptions.Builder#timeout}) and the worker's default: the attempt is cancelled and fails
 * with "job timed out after N ms", retried per its attempts; a processor that ignores it is let go, its slot freed.
 */
class TimeoutTest {
    private static WorkerListener onCompleted(String jobId, CompletableFuture<Job> done) {
        return new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                if (job.id().equals(jobId)) {
                    done.complete(job);
                }
            }
        };
    }

    private static WorkerListener onFailed(String jobId, CompletableFuture<Throwable> failed) {
        return new WorkerListener() {
            @Override
            public void onFailed(Job job, Throwable error) {
                if (job.id().equals(jobId)) {
                    failed.complete(error);
                }
            }
        };
    }

    @Test
    void anAttemptOverItsTimeoutFailsWithTheReason() throws Exception {
        String q = queueName("timeout-fail");
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        CompletableFuture<Duration> seenTimeout = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 seenTimeout.complete(job.opts().timeout());
                 new CountDownLatch(1).await(); // blocked until the timeout interrupts it
                 return null;
             }, workerOptions().build(), onFailed("t1", failed))) {
            queue.add("slow", Map.of(), JobOptions.builder().jobId("t1").timeout(Duration.ofMillis(300)).build());
            assertEquals(Duration.ofMillis(300), await(seenTimeout));
            assertEquals("job timed out after 300 ms", await(failed).getMessage());
            Job job = queue.getJob("t1");
            assertEquals(JobState.FAILED, job.getState());
            assertEquals("job timed out after 300 ms", job.failedReason());
            assertEquals(1, job.attemptsMade());
            assertTrue(redis().hget("bull:" + q + ":t1", "opts").contains("\"timeout\":300"));
        }
    }

    @Test
    void aTimedOutAttemptIsRetriedPerAttempts() throws Exception {
        String q = queueName("timeout-retry");
        CompletableFuture<Job> completed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.attemptsMade() == 0) {
                     new CountDownLatch(1).await();
                 }
                 return "in time";
             }, workerOptions().build(), onCompleted("t2", completed))) {
            queue.add("slow-once", Map.of(), JobOptions.builder().jobId("t2").attempts(2)
                    .timeout(Duration.ofMillis(300)).build());
            await(completed);
            Job job = queue.getJob("t2");
            assertEquals(JobState.COMPLETED, job.getState());
            assertEquals(2, job.attemptsMade());
            assertEquals("job timed out after 300 ms", job.failedReason());
            assertEquals("\"in time\"", job.returnValueJson());
        }
    }

    @Test
    void theWorkerDefaultAppliesAndAProcessorIgnoringItIsLetGo() throws Exception {
        String q = queueName("timeout-default");
        AtomicBoolean release = new AtomicBoolean();
        AtomicBoolean stubbornRunning = new AtomicBoolean();
        CountDownLatch stubbornStarted = new CountDownLatch(1);
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        CompletableFuture<Job> quickDone = new CompletableFuture<>();
        CompletableFuture<Boolean> quickRanBesideStubborn = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.name().equals("quick")) {
                     quickRanBesideStubborn.complete(stubbornRunning.get());
                     return "quick";
                 }
                 stubbornRunning.set(true);
                 stubbornStarted.countDown();
                 while (!release.get()) {
                     Thread.interrupted();
                     LockSupport.parkNanos(5_000_000);
                 }
                 stubbornRunning.set(false);
                 return "late";
             }, workerOptions().concurrency(1).virtualThreads(false).timeout(Duration.ofMillis(400)).build(),
                     onFailed("a", failed), onCompleted("b", quickDone))) {
            queue.add("stubborn", Map.of(), JobOptions.builder().jobId("a").build());
            assertTrue(stubbornStarted.await(20, TimeUnit.SECONDS));
            // its own timeout overrides the worker's 400 ms
            queue.add("quick", Map.of(), JobOptions.builder().jobId("b").timeout(Duration.ofMinutes(5)).build());
            assertEquals("job timed out after 400 ms", await(failed).getMessage());
            await(quickDone);
            assertTrue(await(quickRanBesideStubborn), "the slot was freed while the processor still ran");
            assertEquals("job timed out after 400 ms", queue.getJob("a").failedReason());
            assertEquals(JobState.COMPLETED, queue.getJob("b").getState());
        } finally {
            release.set(true);
        }
    }

    @Test
    void aProcessorWithinItsTimeoutCompletes() throws Exception {
        String q = queueName("timeout-ok");
        CompletableFuture<Job> completed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> job.cancellation().isCancelled() ? "cancelled" : "ok",
                     workerOptions().timeout(Duration.ofSeconds(30)).build(), onCompleted("ok", completed))) {
            queue.add("fast", Map.of(), JobOptions.builder().jobId("ok").build());
            assertEquals("\"ok\"", await(completed).returnValueJson());
            assertEquals(JobState.COMPLETED, queue.getJob("ok").getState());
        }
    }

    @Test
    void timeoutsAreValidated() {
        ValidationException e = assertThrows(ValidationException.class,
                () -> JobOptions.builder().timeout(Duration.ZERO));
        assertEquals("timeout", e.field());
        assertThrows(ValidationException.class, () -> JobOptions.builder().timeout(null));
        assertEquals("timeout", assertThrows(ValidationException.class,
                () -> WorkerOptions.builder().timeout(Duration.ofNanos(10))).field());
        assertNull(WorkerOptions.builder().timeout(null).build().timeout());
        WorkerOptions w = WorkerOptions.builder().timeout(Duration.ofSeconds(3)).build();
        assertEquals(w, w.toBuilder().build());
        assertNotEquals(WorkerOptions.DEFAULTS, w);
        JobOptions j = JobOptions.builder().timeout(Duration.ofSeconds(2)).build();
        assertEquals(Duration.ofSeconds(2), JobOptions.DEFAULTS.withDefaults(j).timeout());
        assertEquals(Duration.ofSeconds(2), OptionsCodec.read(OptionsCodec.write(j)).timeout());
    }
}
