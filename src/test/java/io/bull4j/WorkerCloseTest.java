package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Closing a worker, and concurrency: what runs, what waits, what is given back. */
class WorkerCloseTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void closeWaitsForTheRunningJob() throws Exception {
        String q = queueName("close");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Recorder rec = new Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            Worker worker = new Worker(q, j -> {
                started.countDown();
                return gate.await(10, TimeUnit.SECONDS);
            }, workerOptions().build(), rec);
            try {
                assertTrue(started.await(10, TimeUnit.SECONDS));
                CompletableFuture<Void> closing = CompletableFuture.runAsync(worker::close);
                eventually(WAIT, () -> !worker.isRunning(), "closing began");
                assertThrows(TimeoutException.class, () -> closing.get(500, TimeUnit.MILLISECONDS),
                        "close returned while its job ran");
                gate.countDown();
                closing.get(10, TimeUnit.SECONDS);
                Map<String, String> h = hash(q, job.id());
                assertEquals("true", h.get("returnvalue"), "the job finished before close returned");
                assertNotNull(redis().zscore(key(q, "completed"), job.id()));
                eventually(WAIT, () -> rec.count("closed") == 1, "closed callback");
            } finally {
                gate.countDown();
                worker.close();
            }
        }
    }

    /**
     * A processor that closes its own worker (a batch run that stops on a condition) does not wait for itself: the
     * close returns at once, the job completes, the close completes after it, and a job still waiting stays there.
     * Before, the close waited out the close timeout (30 s) for its own caller, then interrupted it and closed the
     * connection under it, so that its outcome could not be written and it ran again after the stalled check.
     */
    @Test
    void aCloseFromTheWorkersOwnProcessorLetsThatJobFinishFirst() throws Exception {
        String q = queueName("close-from-processor");
        CompletableFuture<Worker> self = new CompletableFuture<>();
        AtomicInteger runs = new AtomicInteger();
        Recorder rec = new Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("first", Map.of());
            Job second = queue.add("second", Map.of());
            Worker worker = new Worker(q, j -> {
                runs.incrementAndGet();
                self.get(10, TimeUnit.SECONDS).close();
                return "closed-by-me";
            }, workerOptions().build(), rec);
            self.complete(worker);
            try {
                eventually(WAIT, () -> rec.count("closed") == 1, "the close completed");
                assertEquals("\"closed-by-me\"", hash(q, first.id()).get("returnvalue"));
                assertNotNull(redis().zscore(key(q, "completed"), first.id()));
                assertEquals(1, runs.get(), "only the first job ran");
                assertEquals(List.of(second.id()), redis().lrange(key(q, "wait"), 0, -1));
                assertEquals(0L, redis().llen(key(q, "active")));
            } finally {
                worker.close();
            }
        }
    }

    /** Likewise from a listener: the listeners' thread does not wait for itself, and onClosed is delivered. */
    @Test
    void aCloseFromTheWorkersOwnListenerCompletes() throws Exception {
        String q = queueName("close-from-listener");
        CompletableFuture<Worker> self = new CompletableFuture<>();
        CountDownLatch closed = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("only", Map.of());
            Worker worker = new Worker(q, j -> "done", workerOptions().build(), new WorkerListener() {
                @Override
                public void onCompleted(Job j, Object result) {
                    self.join().close();
                }

                @Override
                public void onClosed() {
                    closed.countDown();
                }
            });
            self.complete(worker);
            try {
                // before, the close waited 5 s for the listeners' thread, its own, then dropped onClosed
                assertTrue(closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "onClosed delivered");
                assertNotNull(redis().zscore(key(q, "completed"), job.id()));
            } finally {
                worker.close();
            }
        }
    }

    /**
     * A close on a thread whose interrupt flag is set ({@code finally { worker.close(); }} after an
     * InterruptedException) still waits for the running job and keeps the flag; before, every wait of the close
     * returned at once: the job was interrupted, and a connection of the worker's own threw Lettuce's exception and
     * left its threads behind.
     */
    @Test
    void aCloseOnAnInterruptedThreadStillWaitsForTheJob() throws Exception {
        String q = queueName("close-interrupted");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            Worker worker = new Worker(q, j -> {
                started.countDown();
                return gate.await(10, TimeUnit.SECONDS);
            }, workerOptions().build());
            assertTrue(started.await(10, TimeUnit.SECONDS));
            CompletableFuture<Boolean> flagAfter = new CompletableFuture<>();
            Thread closer = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    worker.close();
                    flagAfter.complete(Thread.currentThread().isInterrupted());
                } catch (Throwable e) {
                    flagAfter.completeExceptionally(e);
                }
            });
            closer.start();
            eventually(WAIT, () -> !worker.isRunning(), "closing began");
            assertThrows(TimeoutException.class, () -> flagAfter.get(500, TimeUnit.MILLISECONDS),
                    "close returned while its job ran");
            gate.countDown();
            assertTrue(flagAfter.get(10, TimeUnit.SECONDS), "the caller's interrupt flag is kept");
            assertEquals("true", hash(q, job.id()).get("returnvalue"), "the job finished, not interrupted");
        }
        try (Bull4jConnection own = Bull4jConnection.create(io.bull4j.support.RedisTestServer.get().bull4jUri())) {
            Thread.currentThread().interrupt();
            try {
                own.close(); // threw Lettuce's RedisCommandInterruptedException
                assertTrue(Thread.interrupted(), "the flag is kept (and cleared here)");
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Test
    void aSecondCloseReturnsOnlyOnceTheFirstHasWaitedForTheJob() throws Exception {
        String q = queueName("close-twice");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicBoolean jobEnded = new AtomicBoolean();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("slow", Map.of());
            Worker worker = new Worker(q, j -> {
                started.countDown();
                gate.await(10, TimeUnit.SECONDS);
                jobEnded.set(true);
                return null;
            }, workerOptions().build());
            try {
                assertTrue(started.await(10, TimeUnit.SECONDS));
                CompletableFuture<Void> first = CompletableFuture.runAsync(worker::close);
                eventually(WAIT, () -> !worker.isRunning(), "the first close began");
                // a shutdown hook, say, while the application closes the worker
                CompletableFuture<Boolean> second = new CompletableFuture<>();
                Thread hook = new Thread(() -> {
                    worker.close();
                    second.complete(jobEnded.get());
                }, "second-close");
                hook.start();
                eventually(WAIT, () -> hook.getState() == Thread.State.WAITING || second.isDone(),
                        "the second close waits or has returned");
                gate.countDown();
                assertTrue(second.get(10, TimeUnit.SECONDS), "the second close returned before the job ended");
                first.get(10, TimeUnit.SECONDS);
            } finally {
                gate.countDown();
                worker.close();
            }
        }
    }

    @Test
    void closeWithTimeoutInterruptsAndGivesTheJobBack() throws Exception {
        String q = queueName("closeforce");
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("stuck", Map.of());
            Worker worker = new Worker(q, j -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                }
                return null;
            }, workerOptions().build());
            assertTrue(started.await(10, TimeUnit.SECONDS));
            long start = System.nanoTime();
            worker.close(Duration.ofMillis(300));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < 10_000, "close(300 ms) took " + ms + " ms");
            assertTrue(interrupted.get(), "the job's thread was interrupted");
            // an interrupted job is not the job's failure: it goes back to wait for another worker
            assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0, redis().llen(key(q, "active")));
            assertEquals(0, redis().exists(key(q, job.id() + ":lock")));
            assertNull(redis().zscore(key(q, "failed"), job.id()));
            assertNull(hash(q, job.id()).get("failedReason"));
        }
    }

    @Test
    void concurrencyRunsNJobsAtOnceAndNeverMore() throws Exception {
        String q = queueName("conc");
        int n = 3;
        CountDownLatch allIn = new CountDownLatch(n);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger current = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 2 * n; i++) {
                queue.add("j" + i, Map.of());
            }
            Worker worker = new Worker(q, j -> {
                max.accumulateAndGet(current.incrementAndGet(), Math::max);
                allIn.countDown();
                try {
                    return gate.await(10, TimeUnit.SECONDS);
                } finally {
                    current.decrementAndGet();
                }
            }, workerOptions().concurrency(n).build());
            try {
                assertTrue(allIn.await(10, TimeUnit.SECONDS), "N jobs run at once");
                assertEquals(n, redis().llen(key(q, "active")));
                assertEquals(n, redis().llen(key(q, "wait")));
                assertEquals(n, worker.activeCount());
                gate.countDown();
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 2 * n, "all completed");
            } finally {
                gate.countDown();
                worker.close();
            }
            assertEquals(n, max.get(), "never more than concurrency");
        }
    }
}
