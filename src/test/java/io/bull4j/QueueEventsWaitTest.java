package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import static io.bull4j.JobOpsFixtures.finished;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job.waitUntilFinished(queueEvents, timeout): many waits on one shared reader. */
class QueueEventsWaitTest {
    private static final Duration LONG = Duration.ofSeconds(20);

    private static QueueEvents events(String q) {
        return new QueueEvents(q, QueueEventsOptions.builder().connection(connection()).build());
    }

    private static <T> CompletableFuture<T> async(Supplier<T> wait) {
        return CompletableFuture.supplyAsync(wait, r -> new Thread(r, "waiter").start());
    }

    /**
     * Runs a wait on a thread of its own and returns once it is parked on the job's end (white-box): a job removed
     * on completion before the wait began is not found, so the worker must not start sooner.
     */
    private static <T> CompletableFuture<T> parked(Supplier<T> wait) throws InterruptedException {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                f.complete(wait.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        }, "waiter");
        waiter.start();
        eventually(Duration.ofSeconds(10), () -> f.isDone() || parkedOnTheEnd(waiter), "the waiter parked");
        assertFalse(f.isDone(), "still waiting");
        return f;
    }

    private static boolean parkedOnTheEnd(Thread waiter) {
        return Arrays.stream(waiter.getStackTrace()).anyMatch(f ->
                f.getClassName().equals(JobFinishWaiter.class.getName()) && f.getMethodName().equals("waitFor"));
    }

    /** Whether stream id {@code a} ("ms-seq") comes before {@code b}. */
    private static boolean streamIdBefore(String a, String b) {
        String[] x = (a.contains("-") ? a : a + "-0").split("-");
        String[] y = (b.contains("-") ? b : b + "-0").split("-");
        int byMs = Long.compare(Long.parseLong(x[0]), Long.parseLong(y[0]));
        return byMs != 0 ? byMs < 0 : Long.parseLong(x[1]) < Long.parseLong(y[1]);
    }

    private static long blockedReads() {
        return Arrays.stream(redis().clientList().split("\n"))
                .filter(l -> l.contains("cmd=xread") && l.matches(".*flags=\\S*b.*")).count();
    }

    private static Throwable failure(CompletableFuture<?> f) {
        return assertThrows(ExecutionException.class, () -> await(f)).getCause();
    }

    @Test
    void manyWaitsShareOneReader() throws Exception {
        String q = queueName("qe-wait-many");
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            List<CompletableFuture<Job>> waits = new ArrayList<>();
            List<Job> jobs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Job job = queue.add("w", Map.of("i", i));
                jobs.add(job);
                waits.add(async(() -> job.waitUntilFinished(events, LONG)));
            }
            eventually(Duration.ofSeconds(10), () -> blockedReads() == 1, "one blocked read for all the waits");
            assertTrue(waits.stream().noneMatch(CompletableFuture::isDone));
            try (Worker worker = new Worker(q, j -> j.data(Map.class).get("i"), workerOptions().build())) {
                for (int i = 0; i < 5; i++) {
                    Job done = await(waits.get(i));
                    assertEquals(jobs.get(i).id(), done.id());
                    assertEquals(String.valueOf(i), done.returnValueJson());
                    assertNotNull(done.finishedOn(), "read back from Redis after the event");
                }
            }
            assertTrue(events.isRunning(), "the reader is the caller's: it stays open");
        }
    }

    @Test
    void failedJobThrows() throws Exception {
        String q = queueName("qe-wait-failed");
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            Job job = queue.add("w", Map.of());
            CompletableFuture<Job> done = async(() -> job.waitUntilFinished(events, LONG));
            try (Worker worker = new Worker(q, j -> {
                throw new IllegalStateException("no luck");
            }, workerOptions().build())) {
                JobFailedException e = assertInstanceOf(JobFailedException.class, failure(done));
                assertEquals("no luck", e.failedReason());
                assertEquals(job.id(), e.jobId());
            }
            assertEquals("no luck", redis().hget("bull:" + q + ":" + job.id(), "failedReason"));
        }
    }

    @Test
    void aFinishedJobAnswersAtOnce() {
        String q = queueName("qe-wait-done");
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            Job completed = finished(queue, "c", true, "[1,2]");
            assertEquals(List.of(1, 2), completed.waitUntilFinished(events, Duration.ofMillis(50))
                    .returnValue(List.class));
            // a wait of a thousand years is a wait (its nanoseconds would overflow a long)
            assertEquals(List.of(1, 2), completed.waitUntilFinished(events, Duration.ofDays(365_000))
                    .returnValue(List.class));
            Job failed = finished(queue, "f", false, "bad");
            assertEquals("bad", assertThrows(JobFailedException.class,
                    () -> failed.waitUntilFinished(events, Duration.ofMillis(50))).failedReason());
        }
    }

    @Test
    void timesOutAndLeavesTheReaderRunning() throws Exception {
        String q = queueName("qe-wait-timeout");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            events.addListener(rec);
            Job job = queue.add("w", Map.of());
            WaitTimeoutException e = assertThrows(WaitTimeoutException.class,
                    () -> job.waitUntilFinished(events, Duration.ofMillis(200)));
            assertEquals(Duration.ofMillis(200), e.timeout());
            assertEquals(JobState.WAITING, job.getState());
            assertTrue(events.isRunning());
            Job next = queue.add("next", Map.of());
            rec.await(QueueEvent.Type.WAITING, next.id());
        }
    }

    @Test
    void removedOnCompleteReturnsTheEventsResult() throws Exception {
        String q = queueName("qe-wait-roc");
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            Job job = queue.add("w", Map.of("in", 1), JobOptions.builder().removeOnComplete(true).build());
            CompletableFuture<Job> done = parked(() -> job.waitUntilFinished(events, LONG));
            try (Worker worker = new Worker(q, j -> Map.of("out", 2), workerOptions().build())) {
                Job finished = await(done);
                assertEquals(Map.of("out", 2), finished.returnValue(Map.class));
                assertEquals(Map.of("in", 1), finished.data());
            }
            assertEquals(0, redis().exists("bull:" + q + ":" + job.id()));
        }
    }

    @Test
    void removedOnCompleteBeforeTheWaitIsNotFound() throws Exception {
        String q = queueName("qe-wait-roc-before");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            events.addListener(rec);
            Job job = queue.add("w", Map.of(), JobOptions.builder().removeOnComplete(true).build());
            QueueEvent completed;
            try (Worker worker = new Worker(q, j -> 1, workerOptions().build())) {
                completed = rec.await(QueueEvent.Type.COMPLETED, job.id());
            }
            // the reader moves its cursor once every listener has the event: until then a wait begun now may find
            // that end as one being handed on (and return the job), so wait until the end is behind the wait
            eventually(Duration.ofSeconds(10), () -> !streamIdBefore(events.lastEventId(), completed.id()),
                    "the reader's cursor past the completed event");
            // its record is gone with it, as in BullMQ (isFinished answers "missing")
            assertEquals(JobException.Reason.JOB_NOT_FOUND, assertThrows(JobException.class,
                    () -> job.waitUntilFinished(events, LONG)).reason());
            assertEquals(JobException.Reason.JOB_NOT_FOUND, assertThrows(JobException.class,
                    () -> job.waitUntilFinished(LONG)).reason());
        }
    }

    @Test
    void removedOrMissingIsNotFound() throws Exception {
        String q = queueName("qe-wait-removed");
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q)) {
            Job gone = queue.add("g", Map.of());
            assertTrue(gone.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND, assertThrows(JobException.class,
                    () -> gone.waitUntilFinished(events, LONG)).reason());
            Job job = queue.add("w", Map.of());
            CompletableFuture<Job> done = async(() -> job.waitUntilFinished(events, LONG));
            eventually(Duration.ofSeconds(10), () -> blockedReads() == 1, "reading");
            // before the wait reads the state, or after: not found either way
            assertTrue(job.remove());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertInstanceOf(JobException.class, failure(done)).reason());
        }
    }

    @Test
    void closingTheReaderEndsTheWait() throws Exception {
        String q = queueName("qe-wait-close");
        try (Queue queue = new Queue(q, queueOptions())) {
            QueueEvents events = events(q);
            Job job = queue.add("w", Map.of());
            // so that the close lands during the wait and not before it began
            CompletableFuture<Job> done = parked(() -> job.waitUntilFinished(events, LONG));
            events.close();
            Throwable e = failure(done);
            assertEquals(Bull4jException.class, e.getClass(), e.toString());
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            assertEquals("queueEvents", assertThrows(ValidationException.class,
                    () -> job.waitUntilFinished(events, LONG)).field());
        }
    }

    @Test
    void aWaitRegisteredAsTheReaderClosesIsToldOfTheClose() {
        String q = queueName("qe-wait-late-reg");
        QueueEvents events = events(q);
        events.close();
        // the waiter's check that the reader is open passed, then close() told the registrations it had
        java.util.concurrent.atomic.AtomicBoolean told = new java.util.concurrent.atomic.AtomicBoolean();
        events.onJob("1", e -> { }, () -> told.set(true));
        assertTrue(told.get(), "a registration added after the close is told at once, not left to its timeout");
    }

    @Test
    void theReaderMustBeOfTheJobsQueue() {
        String q = queueName("qe-wait-other");
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents mine = events(q);
             QueueEvents other = events(queueName("qe-other"))) {
            Job job = queue.add("w", Map.of());
            assertEquals("queueEvents", assertThrows(ValidationException.class,
                    () -> job.waitUntilFinished(other, LONG)).field());
            assertEquals("queueEvents", assertThrows(ValidationException.class,
                    () -> job.waitUntilFinished(null, LONG)).field());
            assertEquals("timeout", assertThrows(ValidationException.class,
                    () -> job.waitUntilFinished(mine, Duration.ZERO)).field());
        }
    }

    /**
     * The stream is trimmed ({@code maxLenEvents}) while the reader lags behind a slow listener: the job's
     * {@code completed} event is gone before the reader gets there. The wait looks at the job once more before it
     * reports a timeout (it said "did not finish" of a completed job).
     */
    @Test
    void aWaitWhoseEndWasTrimmedAwayLooksAgainBeforeTimingOut() throws Exception {
        String q = queueName("wait-trimmed");
        java.util.concurrent.CountDownLatch inListener = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Queue queue = new Queue(q, QueueOptions.builder().connection(connection()).maxLenEvents(10).build());
             QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection()).build())) {
            events.addListener(e -> {
                inListener.countDown();
                try {
                    release.await(); // a slow listener: the reader lags
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            Job job = queue.add("x", Map.of());
            assertTrue(inListener.await(10, java.util.concurrent.TimeUnit.SECONDS), "the reader is held");
            CompletableFuture<Object> wait = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    wait.complete(job.waitUntilFinished(events, Duration.ofSeconds(3)));
                } catch (RuntimeException e) {
                    wait.complete(e);
                }
            });
            waiter.start();
            // the wait has seen the job unfinished and waits for its event
            eventually(Duration.ofSeconds(10), () -> Arrays.stream(waiter.getStackTrace())
                    .anyMatch(f -> f.getMethodName().equals("waitFor")), "the wait is registered");
            try (Worker worker = new Worker(q, j -> "done", workerOptions().build())) {
                eventually(Duration.ofSeconds(10), () -> redis().zscore("bull:" + q + ":completed", job.id()) != null,
                        "completed");
            }
            // the events stream trimmed past the end (maxLenEvents trims approximately, so the test trims exactly)
            redis().xtrim("bull:" + q + ":events", 0);
            release.countDown();
            Object outcome = wait.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertInstanceOf(Job.class, outcome, "the completed job, not a timeout: " + outcome);
            assertEquals("done", ((Job) outcome).returnValue(String.class));
        }
    }

    /**
     * A wait from inside a listener of the reader it waits with: that reader's thread is the caller, so it could never
     * deliver the end (it timed out every time, holding the reader meanwhile); it waits with a reader of its own.
     */
    @Test
    void aWaitFromAListenerOfItsOwnReaderReturns() throws Exception {
        String q = queueName("wait-in-listener");
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection()).build());
             Worker worker = new Worker(q, j -> "ok", workerOptions().build())) {
            events.on(QueueEvent.Type.ADDED, e -> {
                try {
                    outcome.complete(queue.getJob(e.jobId()).waitUntilFinished(events, Duration.ofSeconds(10)));
                } catch (RuntimeException x) {
                    outcome.complete(x);
                }
            });
            queue.add("x", Map.of());
            Object r = outcome.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertInstanceOf(Job.class, r, "returned, not timed out: " + r);
        }
    }
}
