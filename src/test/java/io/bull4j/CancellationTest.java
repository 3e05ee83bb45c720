package io.bull4j;

import io.bull4j.support.ChildJvm;
import io.bull4j.support.HangingWorkerMain;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Cancelling running jobs: a processor blocked in a call (interrupted), a busy loop that checks its
 * {@link Cancellation}, one that ignores both (let go: slot freed, late result refused), and a cancel from another
 * process through {@link Queue#cancelJob}.
 */
class CancellationTest {
    private static String key(String q, String suffix) {
        return "bull:" + q + ":" + suffix;
    }

    /** Completes with the job's failure as the worker reports it. */
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
    void awaitWithATimeoutBeyondWhatNanosecondsHoldWaitsForTheCancellation() throws Exception {
        // "wait as long as it takes": a Duration past ~292 years (Long.MAX_VALUE ms, ChronoUnit.FOREVER) must wait,
        // as CountDownLatch.await saturates, not throw ArithmeticException from Duration.toNanos
        String q = queueName("cancel-await-long");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Object> awaited = new CompletableFuture<>();
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 started.countDown();
                 try {
                     awaited.complete(job.cancellation().await(Duration.ofMillis(Long.MAX_VALUE)));
                 } catch (InterruptedException | RuntimeException e) {
                     awaited.complete(e);
                     throw e;
                 }
                 return "woken";
             }, workerOptions().build(), onFailed("w1", failed))) {
            queue.add("export", Map.of(), JobOptions.builder().jobId("w1").build());
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            eventually(Duration.ofSeconds(10), () -> awaited.isDone() || worker.cancelJob("w1", "stop waiting"),
                    "the job cancelled while it waits");
            Object outcome = await(awaited);
            assertTrue(Boolean.TRUE.equals(outcome) || outcome instanceof InterruptedException,
                    "the wait ends with the cancellation, not with " + outcome);
            assertEquals("stop waiting", await(failed).getMessage());
        }
    }

    @Test
    void aProcessorBlockedInACallIsInterruptedAndTheJobFailsWithTheReason() throws Exception {
        String q = queueName("cancel-blocking");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> sawCancelled = new CompletableFuture<>();
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        CompletableFuture<Job> completed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.attemptsMade() > 0) {
                     return "second attempt";
                 }
                 started.countDown();
                 try {
                     new CountDownLatch(1).await(); // a blocking call that never returns on its own
                 } finally {
                     sawCancelled.complete(job.cancellation().isCancelled());
                 }
                 return "never";
             }, workerOptions().build(), onFailed("b1", failed), new WorkerListener() {
                 @Override
                 public void onCompleted(Job job, Object result) {
                     completed.complete(job);
                 }
             })) {
            queue.add("export", Map.of(), JobOptions.builder().jobId("b1").attempts(2).build());
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            assertFalse(worker.cancelJob("other", "x"), "a job this worker does not run");
            assertTrue(worker.cancelJob("b1", "user cancelled the export"));
            assertFalse(worker.cancelJob("b1", "again"), "already cancelled");
            assertTrue(await(sawCancelled), "the handle was marked before the interrupt");

            Throwable error = await(failed);
            assertEquals("user cancelled the export", error.getMessage());
            assertInstanceOf(InterruptedException.class, error.getCause());
            // retried per its attempts, as a BullMQ processor's Error would be
            await(completed);
            Job job = queue.getJob("b1");
            assertEquals(JobState.COMPLETED, job.getState());
            assertEquals("user cancelled the export", job.failedReason(), "the first attempt's reason is kept");
            assertEquals(2, job.attemptsMade());
        }
    }

    @Test
    void aBusyLoopChecksTheHandleAndTheRetryCompletes() throws Exception {
        String q = queueName("cancel-busy");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Job> completed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.attemptsMade() > 0) {
                     return "second attempt";
                 }
                 started.countDown();
                 long spins = 0;
                 while (true) {
                     job.cancellation().throwIfCancelled();
                     Thread.interrupted(); // this loop deliberately relies on the handle alone
                     if (++spins % 1000 == 0) {
                         Thread.yield();
                     }
                 }
             }, workerOptions().build(), new WorkerListener() {
                 @Override
                 public void onCompleted(Job job, Object result) {
                     completed.complete(job);
                 }
             })) {
            queue.add("loop", Map.of(), JobOptions.builder().jobId("s1").attempts(2).build());
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(1, worker.cancelAllJobs("stop the loop"));
            await(completed);
            Job job = queue.getJob("s1");
            assertEquals(JobState.COMPLETED, job.getState());
            assertEquals(2, job.attemptsMade());
            assertEquals("stop the loop", job.failedReason());
            assertTrue(job.stacktrace().get(0).startsWith(CancellationException.class.getName() + ": stop the loop"),
                    job.stacktrace().get(0));
        }
    }

    @Test
    void anUnrecoverableExceptionAfterTheCancellationIsNotRetried() throws Exception {
        String q = queueName("cancel-unrecoverable");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 started.countDown();
                 try {
                     job.cancellation().await(Duration.ofSeconds(60));
                 } catch (InterruptedException e) {
                     // the cancellation interrupts this thread too; either way the processor gives up for good
                 }
                 throw new UnrecoverableException("cleaned up");
             }, workerOptions().build(), onFailed("u1", failed))) {
            queue.add("u", Map.of(), JobOptions.builder().jobId("u1").attempts(5).build());
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            worker.cancelJob("u1", null);
            assertInstanceOf(UnrecoverableException.class, await(failed));
            Job job = queue.getJob("u1");
            assertEquals(JobState.FAILED, job.getState());
            assertEquals(JobControl.DEFAULT_REASON, job.failedReason(), "the cancellation's reason is recorded");
            assertEquals(1, job.attemptsMade());
        }
    }

    @Test
    void aProcessorThatIgnoresBothIsLetGoItsSlotFreedAndItsLateResultRefused() throws Exception {
        String q = queueName("cancel-ignored");
        CountDownLatch stubbornStarted = new CountDownLatch(1);
        AtomicBoolean release = new AtomicBoolean();
        AtomicBoolean stubbornRunning = new AtomicBoolean();
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        CompletableFuture<Boolean> nextRanWhileStubbornRan = new CompletableFuture<>();
        CompletableFuture<Throwable> lateRefused = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.id().equals("next")) {
                     nextRanWhileStubbornRan.complete(stubbornRunning.get());
                     return "next done";
                 }
                 stubbornRunning.set(true);
                 stubbornStarted.countDown();
                 while (!release.get()) {
                     Thread.interrupted(); // ignores the interrupt, and never looks at the handle
                     LockSupport.parkNanos(5_000_000);
                 }
                 stubbornRunning.set(false);
                 return "late result";
             }, workerOptions().concurrency(1).virtualThreads(false).build(), onFailed("ig1", failed),
                     new WorkerListener() {
                         @Override
                         public void onError(Throwable error) {
                             if (error instanceof JobException && "ig1".equals(((JobException) error).jobId())) {
                                 lateRefused.complete(error);
                             }
                         }
                     })) {
            queue.add("stubborn", Map.of(), JobOptions.builder().jobId("ig1").build());
            assertTrue(stubbornStarted.await(20, java.util.concurrent.TimeUnit.SECONDS));
            queue.add("next", Map.of(), JobOptions.builder().jobId("next").build());
            assertTrue(worker.cancelJob("ig1", "operator abort"));

            assertEquals("operator abort", await(failed).getMessage());
            assertTrue(await(nextRanWhileStubbornRan), "the freed slot ran the next job while the first still ran");
            eventually(Duration.ofSeconds(10), () -> JobState.COMPLETED == queue.getJob("next").getState(),
                    "next completed");
            Job ig = queue.getJob("ig1");
            assertEquals(JobState.FAILED, ig.getState());
            assertEquals("operator abort", ig.failedReason());
            assertEquals(0, redis().exists(key(q, "ig1:lock")));

            release.set(true);
            JobException refused = (JobException) await(lateRefused);
            assertEquals(JobException.Reason.LOCK_MISSING, refused.reason());
            Job after = queue.getJob("ig1");
            assertEquals(JobState.FAILED, after.getState());
            assertNull(after.returnValueJson(), "the late result was not recorded");
            assertEquals(1, after.attemptsMade());
        }
    }

    @Test
    void aCancelRequestThroughTheQueueNeverReachesALaterAttempt() throws Exception {
        String q = queueName("cancel-stale");
        CountDownLatch firstStarted = new CountDownLatch(1);
        CompletableFuture<Long> requestSeenBySecond = new CompletableFuture<>();
        CompletableFuture<Job> completed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.attemptsMade() == 0) {
                     firstStarted.countDown();
                     new CountDownLatch(1).await();
                 }
                 requestSeenBySecond.complete(redis().exists(key(q, "st1:cancel")));
                 // three polls of the requests (one a second) pass while this attempt waits for a cancellation
                 return job.cancellation().await(Duration.ofMillis(3 * JobControl.REMOTE_POLL_MS))
                         ? "cancelled" : "not cancelled";
             }, workerOptions().build(), new WorkerListener() {
                 @Override
                 public void onCompleted(Job job, Object result) {
                     completed.complete(job);
                 }
             })) {
            queue.add("twice", Map.of(), JobOptions.builder().jobId("st1").attempts(2).build());
            assertTrue(firstStarted.await(20, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(queue.cancelJob("st1", "for the first attempt"));
            assertEquals(1L, await(requestSeenBySecond), "the request is still there during the second attempt");
            assertEquals("\"not cancelled\"", await(completed).returnValueJson());
            assertEquals("for the first attempt", queue.getJob("st1").failedReason());
        }
    }

    @Test
    void aJobRunningInAnotherProcessIsCancelledThroughTheQueue() throws Exception {
        String q = queueName("cancel-remote");
        try (Queue queue = new Queue(q, queueOptions());
             ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), q, "30000",
                     "30000")) {
            assertFalse(queue.cancelJob("r1", "nobody runs it"), "no lock: no request");
            queue.add("remote", Map.of(), JobOptions.builder().jobId("r1").build());
            String line = child.awaitLine(l -> l.startsWith("STARTED r1 "), 30);
            String token = line.split(" ")[2];
            assertTrue(queue.cancelJob("r1", "cancelled from another process"));
            assertTrue(redis().get(key(q, "r1:cancel")).contains(token), "the request names the running attempt");

            eventually(Duration.ofSeconds(20), () -> JobState.FAILED == queue.getJob("r1").getState(),
                    "the child's worker failed r1");
            Job job = queue.getJob("r1");
            assertEquals("cancelled from another process", job.failedReason());
            assertEquals(1, job.attemptsMade());
            assertTrue(child.isAlive(), "the worker process goes on");
        }
    }
}
