package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static io.bull4j.JobOpsFixtures.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job.waitUntilFinished: blocks on the events stream (XREAD BLOCK), for every way a job can end. */
class JobOpsWaitTest {
    private static final Duration LONG = Duration.ofSeconds(20);

    /** Runs a wait on a thread of its own, and returns once Redis shows its read blocked on the stream. */
    private static <T> CompletableFuture<T> waiting(Supplier<T> wait) throws InterruptedException {
        CompletableFuture<T> f = CompletableFuture.supplyAsync(wait, r -> new Thread(r, "waiter").start());
        eventually(Duration.ofSeconds(10), () -> blockedReaders() == 1 || f.isDone(), "a blocked XREAD");
        assertFalse(f.isDone(), "still waiting");
        return f;
    }

    private static long blockedReaders() {
        return Arrays.stream(redis().clientList().split("\n"))
                .filter(l -> l.contains("cmd=xread") && l.matches(".*flags=\\S*b.*")).count();
    }

    private static Throwable failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(f));
        return e.getCause();
    }

    @Test
    void returnsTheCompletedJobOnceAWorkerFinishesIt() throws Exception {
        String q = queueName("wait-completed");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of());
            CompletableFuture<Job> done = waiting(() -> job.waitUntilFinished(LONG));
            try (Worker worker = new Worker(q, j -> Map.of("n", 1), workerOptions().build())) {
                Job finished = await(done);
                assertEquals(Map.of("n", 1), finished.returnValue(Map.class));
                assertNotNull(finished.finishedOn());
                assertEquals(1, finished.attemptsMade());
                assertNull(finished.token());
            }
            eventually(Duration.ofSeconds(5), () -> blockedReaders() == 0, "the wait's connection closed");
        }
    }

    @Test
    void retriesAreNotTheEnd() throws Exception {
        String q = queueName("wait-retried");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of(), JobOptions.builder().attempts(2).build());
            CompletableFuture<Job> done = waiting(() -> job.waitUntilFinished(LONG));
            AtomicInteger runs = new AtomicInteger();
            try (Worker worker = new Worker(q, j -> {
                if (runs.incrementAndGet() == 1) {
                    throw new IllegalStateException("first try fails");
                }
                return "second";
            }, workerOptions().build())) {
                Job finished = await(done);
                assertEquals("\"second\"", finished.returnValueJson());
                assertEquals(2, finished.attemptsMade());
            }
        }
    }

    @Test
    void throwsJobFailedExceptionWhenTheJobFails() throws Exception {
        String q = queueName("wait-failed");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of());
            CompletableFuture<Job> done = waiting(() -> job.waitUntilFinished(LONG));
            try (Worker worker = new Worker(q, j -> {
                throw new IllegalStateException("boom");
            }, workerOptions().build())) {
                JobFailedException e = assertInstanceOf(JobFailedException.class, failure(done));
                assertEquals("boom", e.failedReason());
                assertEquals(job.id(), e.jobId());
                assertEquals(q, e.queueName());
            }
            assertEquals("boom", redis().hget(key(q, job.id()), "failedReason"));
        }
    }

    @Test
    void aJobThatFinishedAlreadyAnswersAtOnce() {
        String q = queueName("wait-done");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job completed = finished(queue, "c", true, "{\"v\":7}");
            assertEquals(Map.of("v", 7), completed.waitUntilFinished(Duration.ofMillis(50)).returnValue(Map.class));

            Job failed = finished(queue, "f", false, "bad input");
            JobFailedException e = assertThrows(JobFailedException.class,
                    () -> failed.waitUntilFinished(Duration.ofMillis(50)));
            assertEquals("bad input", e.failedReason());
        }
    }

    @Test
    void givesUpAfterTheTimeoutAndClosesItsConnection() throws Exception {
        String q = queueName("wait-timeout");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of());
            WaitTimeoutException e = assertThrows(WaitTimeoutException.class,
                    () -> job.waitUntilFinished(Duration.ofMillis(300)));
            assertEquals(job.id(), e.jobId());
            assertEquals(Duration.ofMillis(300), e.timeout());
            assertEquals(JobState.WAITING, job.getState(), "the job is untouched");
            eventually(Duration.ofSeconds(5), () -> blockedReaders() == 0, "the wait's connection closed");
            assertEquals("timeout", assertThrows(ValidationException.class,
                    () -> job.waitUntilFinished(Duration.ZERO)).field());
        }
    }

    @Test
    void aJobRemovedOnCompletionIsReturnedWithItsResult() throws Exception {
        String q = queueName("wait-removed-on-complete");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("w", Map.of("in", 1), JobOptions.builder().removeOnComplete(true).build());
            CompletableFuture<Job> done = waiting(() -> job.waitUntilFinished(LONG));
            try (Worker worker = new Worker(q, j -> Map.of("out", 2), workerOptions().build())) {
                Job finished = await(done);
                assertEquals(Map.of("out", 2), finished.returnValue(Map.class));
                assertEquals(Map.of("in", 1), finished.data());
            }
            assertEquals(0, redis().exists(key(q, job.id())), "removed on completion");
        }
    }

    @Test
    void aMissingOrRemovedJobIsNotFound() throws Exception {
        String q = queueName("wait-missing");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job gone = queue.add("g", Map.of());
            assertTrue(gone.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND, assertThrows(JobException.class,
                    () -> gone.waitUntilFinished(LONG)).reason());

            Job job = queue.add("w", Map.of());
            CompletableFuture<Job> done = waiting(() -> job.waitUntilFinished(LONG));
            assertTrue(job.remove());
            JobException e = assertInstanceOf(JobException.class, failure(done));
            assertEquals(JobException.Reason.JOB_NOT_FOUND, e.reason());
        }
    }
}
