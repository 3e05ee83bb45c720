package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Worker listeners: every callback on the worker's event thread, and a throwing listener is harmless. */
class WorkerListenerTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Throws from every callback. */
    private static final WorkerListener THROWER = new WorkerListener() {
        @Override
        public void onActive(Job job) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void onCompleted(Job job, Object result) {
            throw new IllegalStateException("listener bug");
        }

        @Override
        public void onFailed(Job job, Throwable error) {
            throw new Error("listener bug");
        }

        @Override
        public void onError(Throwable error) {
            throw new IllegalStateException("listener bug");
        }
    };

    @Test
    void callbacksRunOnTheEventThreadAndAThrowingListenerDoesNotStopTheWorker() throws Exception {
        String q = queueName("listen");
        Recorder rec = new Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job ok = queue.add("ok", Map.of());
            Job bad = queue.add("bad", Map.of());
            Job stolen = queue.add("stolen", Map.of());
            Worker worker = new Worker(q, job -> {
                switch (job.name()) {
                    case "bad":
                        throw new IllegalArgumentException("nope");
                    case "stolen":
                        // another owner took the lock: finishing is refused and reported as an error
                        redis().set(key(q, job.id() + ":lock"), "other:1");
                        return null;
                    default:
                        job.updateProgress(50);
                        return "fine";
                }
            }, workerOptions().autorun(false).build());
            worker.addListener(THROWER).addListener(rec);
            worker.run();
            try {
                eventually(WAIT, () -> rec.count("error") >= 1 && rec.count("drained") >= 1, "error and drained");
                assertTrue(rec.calls.contains("completed:" + ok.id() + "@bull4j-events-" + q), rec.calls.toString());
                assertTrue(rec.calls.contains("progress:" + ok.id() + "@bull4j-events-" + q));
                assertTrue(rec.calls.contains("failed:" + bad.id() + "@bull4j-events-" + q));
                assertTrue(rec.calls.contains("active:" + stolen.id() + "@bull4j-events-" + q));

                Job after = queue.add("ok", Map.of());
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), after.id()) != null,
                        "still working after listeners threw");
                eventually(WAIT, () -> rec.calls.contains("completed:" + after.id() + "@bull4j-events-" + q),
                        "and still notifying");
            } finally {
                worker.close();
            }
            assertEquals(1, rec.count("closed"), "delivered before close returns");
            for (String call : rec.calls) {
                assertTrue(call.endsWith("@bull4j-events-" + q), "callback on another thread: " + call);
            }
            assertEquals("50", hash(q, ok.id()).get("progress"));
        }
    }

    /**
     * A listener slower than the jobs holds them back once the events waiting for it pass ListenerBus.MAX_BEHIND
     * (as BullMQ's listeners, called in line, do): the job threads wait, and the events never pile up in memory.
     * Before, the worker ran on and queued every event, each holding its job's fields (228 MB for 18,500 jobs of
     * 10 KB behind a 2 ms listener).
     */
    @Test
    void aListenerFarBehindHoldsTheJobsBack() throws Exception {
        String q = TestSupport.queueName("listener-behind");
        int concurrency = 4;
        int jobs = ListenerBus.MAX_BEHIND + 200;
        CountDownLatch gate = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger heard = new java.util.concurrent.atomic.AtomicInteger();
        try (Queue queue = new Queue(q, TestSupport.queueOptions());
             Worker worker = new Worker(q, job -> null, TestSupport.workerOptions().concurrency(concurrency)
                     .virtualThreads(false).autorun(false).build())) {
            List<BulkJob> bulk = new java.util.ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                bulk.add(BulkJob.of("j", java.util.Map.of("i", i)));
            }
            queue.addBulk(bulk);
            worker.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    heard.incrementAndGet();
                }
            });
            worker.run();
            TestSupport.eventually(java.time.Duration.ofSeconds(20), () -> jobThreadsWaitingForRoom(q) == concurrency,
                    "every job thread waits for the listener");
            long completed = TestSupport.redis().zcard("bull:" + q + ":completed");
            assertTrue(completed <= ListenerBus.MAX_BEHIND + concurrency + 1, "completed while held: " + completed);
            gate.countDown();
            TestSupport.eventually(java.time.Duration.ofSeconds(30), () -> heard.get() == jobs, "every event heard");
        }
    }

    private static long jobThreadsWaitingForRoom(String q) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().startsWith("bull4j-" + q + "-job"))
                .filter(e -> java.util.Arrays.stream(e.getValue()).anyMatch(f -> f.getMethodName().equals("awaitRoom")))
                .count();
    }

    /** A listener sees the data the processor wrote with updateData, as BullMQ's completed event's job.data. */
    @Test
    void aListenerSeesTheDataTheProcessorWrote() throws Exception {
        String q = TestSupport.queueName("listener-data");
        java.util.concurrent.CompletableFuture<Object> seen = new java.util.concurrent.CompletableFuture<>();
        try (Queue queue = new Queue(q, TestSupport.queueOptions());
             Worker worker = new Worker(q, job -> {
                 job.updateData(Map.of("new", 2));
                 return null;
             }, TestSupport.workerOptions().build())) {
            worker.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    seen.complete(job.data());
                }
            });
            queue.add("d", Map.of("old", 1));
            assertEquals(Map.of("new", 2), TestSupport.await(seen));
        }
    }
}
