package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Global concurrency (meta.concurrency): a cap on active jobs over all workers, as BullMQ 6.7.0. */
class GlobalConcurrencyTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void setGetRemove() {
        try (Queue queue = new Queue(queueName("gc-meta"), queueOptions())) {
            assertNull(queue.getGlobalConcurrency());
            queue.setGlobalConcurrency(3);
            assertEquals(3, queue.getGlobalConcurrency());
            assertEquals("3", redis().hget(key(queue.name(), "meta"), "concurrency"), "BullMQ's meta field");
            queue.removeGlobalConcurrency();
            assertNull(queue.getGlobalConcurrency());
            ValidationException e = assertThrows(ValidationException.class, () -> queue.setGlobalConcurrency(0));
            assertTrue(e.getMessage().contains("concurrency"));
        }
    }

    @Test
    void neverMoreActiveThanTheCapOverAllWorkers() throws Exception {
        String q = queueName("gc-cap");
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger maxActiveList = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.setGlobalConcurrency(2);
            for (int i = 0; i < 12; i++) {
                queue.add("j", Map.of());
            }
            Processor p = job -> {
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                maxActiveList.accumulateAndGet(redis().llen(key(q, "active")).intValue(), Math::max);
                try {
                    release.await(10, TimeUnit.SECONDS); // hold the first jobs until the cap is checked
                } finally {
                    running.decrementAndGet();
                }
                return null;
            };
            Worker a = new Worker(q, p, workerOptions().concurrency(4).build());
            Worker b = new Worker(q, p, workerOptions().concurrency(4).build());
            try {
                eventually(WAIT, () -> running.get() == 2, "two jobs running");
                assertTrue(queue.isMaxed());
                assertEquals(2, redis().llen(key(q, "active")));
                // a new add wakes the workers; they must still not take a third job
                queue.add("j", Map.of());
                assertEquals(2, redis().llen(key(q, "active")));
                release.countDown();
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 13, "all completed");
            } finally {
                release.countDown();
                a.close();
                b.close();
            }
            assertEquals(2, maxRunning.get(), "the cap was reached and never passed");
            assertTrue(maxActiveList.get() <= 2, "active list never above the cap: " + maxActiveList.get());
            assertFalse(queue.isMaxed());
        }
    }

    @Test
    void raisingTheCapLetsMoreJobsRun() throws Exception {
        String q = queueName("gc-raise");
        AtomicInteger running = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.setGlobalConcurrency(1);
            for (int i = 0; i < 4; i++) {
                queue.add("j", Map.of());
            }
            Worker w = new Worker(q, job -> {
                running.incrementAndGet();
                release.await(10, TimeUnit.SECONDS);
                return null;
            }, workerOptions().concurrency(3).drainDelay(Duration.ofMillis(200)).build());
            try {
                eventually(WAIT, () -> running.get() == 1, "one job running");
                queue.setGlobalConcurrency(3);
                queue.add("j", Map.of()); // a marker, so the worker asks again at once
                eventually(WAIT, () -> running.get() == 3, "three jobs under the raised cap");
                release.countDown();
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 5, "all completed");
            } finally {
                release.countDown();
                w.close();
            }
        }
    }
}
