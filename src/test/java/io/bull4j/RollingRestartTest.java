package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A worker closes while one job runs and two more were fetched but not started: the fetched ones go to another
 * worker at once, and the running one keeps its lock and is never started twice.
 */
class RollingRestartTest {
    @Test
    void closingWorkerHandsOverFetchedJobsAndKeepsItsRunningOne() throws Exception {
        String q = queueName("rolling");
        String base = "bull:" + q + ":";
        try (Queue queue = new Queue(q, queueOptions())) {
            // one executor thread with concurrency 3: the first job runs, the next two wait, fetched and locked
            ExecutorService oneThread = Executors.newSingleThreadExecutor();
            CountDownLatch firstStarted = new CountDownLatch(1);
            CountDownLatch releaseFirst = new CountDownLatch(1);
            Map<String, Integer> startsOnA = new ConcurrentHashMap<>();
            Worker a = new Worker(q, job -> {
                startsOnA.merge(job.id(), 1, Integer::sum);
                firstStarted.countDown();
                assertTrue(releaseFirst.await(60, TimeUnit.SECONDS));
                return "done by A";
            }, workerOptions().concurrency(3).executor(oneThread).lockDuration(Duration.ofSeconds(2))
                    .stalledInterval(Duration.ofMillis(500)).build());

            Job first = queue.add("j", Map.of("i", 1));
            assertTrue(firstStarted.await(20, TimeUnit.SECONDS));
            queue.add("j", Map.of("i", 2));
            queue.add("j", Map.of("i", 3));
            eventually(Duration.ofSeconds(20), () -> redis().llen(base + "active") == 3, "A holds three jobs");
            String firstToken = redis().get(base + first.id() + ":lock");
            assertNotNull(firstToken);

            CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);

            Set<String> doneOnB = ConcurrentHashMap.newKeySet();
            CountDownLatch bDidTwo = new CountDownLatch(2);
            Worker b = new Worker(q, job -> {
                doneOnB.add(job.id());
                bDidTwo.countDown();
                return "done by B";
            }, workerOptions().concurrency(2).lockDuration(Duration.ofSeconds(2)).stalledInterval(
                    Duration.ofMillis(500)).build());
            try {
                assertTrue(bDidTwo.await(20, TimeUnit.SECONDS), "B got the fetched-but-unstarted jobs at once");
                assertEquals(Set.of("2", "3"), doneOnB);
                assertFalse(closing.isDone(), "A waits for its running job");

                // several lock periods and stalled scans later, A's running job is still A's alone
                // a stalled scan that ran after the first lock would have expired unrenewed
                long unrenewedExpiry = Long.parseLong(redis().hget(base + first.id(), "processedOn")) + 2500;
                eventually(Duration.ofSeconds(20), () -> {
                    String lastScan = redis().get(base + "stalled-check");
                    return lastScan != null && Long.parseLong(lastScan) > unrenewedExpiry;
                }, "a stalled scan after the unrenewed lock would have expired");
                assertEquals(firstToken, redis().get(base + first.id() + ":lock"), "lock kept, renewed, never released");
                assertEquals("1", redis().hget(base + first.id(), "ats"));
                assertFalse(doneOnB.contains(first.id()));

                releaseFirst.countDown();
                closing.get(20, TimeUnit.SECONDS);
            } finally {
                releaseFirst.countDown();
                b.close();
                oneThread.shutdownNow();
            }
            assertEquals(Map.of(first.id(), 1), startsOnA, "A started only its first job, once");
            assertEquals("\"done by A\"", redis().hget(base + first.id(), "returnvalue"));
            assertEquals("1", redis().hget(base + first.id(), "ats"));
            assertNull(redis().hget(base + first.id(), "stc"));
            assertEquals(List.of(), redis().lrange(base + "active", 0, -1));
            assertEquals(3, redis().zcard(base + "completed"));
            for (String id : List.of("2", "3")) {
                assertEquals("\"done by B\"", redis().hget(base + id, "returnvalue"));
                assertEquals("1", redis().hget(base + id, "ats"), "the give-back does not count a start");
            }
        }
    }
}
