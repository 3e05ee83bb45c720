package io.bull4j;

import io.bull4j.support.ChildJvm;
import io.bull4j.support.HangingWorkerMain;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** A worker JVM killed with SIGKILL mid-job: its job is recovered once its lock expires, and completes once. */
class CrashRecoveryTest {
    @Test
    void jobOfKilledWorkerIsCompletedOnceByAnotherWorker() throws Exception {
        String q = queueName("crash");
        String base = "bull:" + q + ":";
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("work", Map.of("n", 1));

            String oldToken;
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), q, "2000",
                    "1000")) {
                String started = child.awaitLine(l -> l.startsWith("STARTED "), 60);
                oldToken = started.split(" ")[2];
                assertEquals("STARTED " + job.id() + " " + oldToken, started);
                assertEquals(oldToken, redis().get(base + job.id() + ":lock"), "the child holds the lock");
                child.kill();
                assertFalse(child.isAlive());
            }

            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<String> lockAtStart = new CompletableFuture<>();
            CompletableFuture<Object> completed = new CompletableFuture<>();
            CompletableFuture<String> stalled = new CompletableFuture<>();
            // listening from the start: the first stalled check runs as the worker starts
            WorkerListener listener = new WorkerListener() {
                @Override
                public void onCompleted(Job j, Object result) {
                    completed.complete(result);
                }

                @Override
                public void onStalled(String jobId) {
                    stalled.complete(jobId);
                }
            };
            Worker worker = new Worker(q, j -> {
                runs.incrementAndGet();
                lockAtStart.complete(j.token());
                return Map.of("recovered", true);
            }, workerOptions().lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofSeconds(1)).build(),
                    listener);
            try {
                assertEquals(job.id(), await(stalled));
                assertEquals(Map.of("recovered", true), await(completed));
                assertNotEquals(oldToken, await(lockAtStart), "the new run holds a fresh token");
            } finally {
                worker.close();
            }

            assertEquals(1, runs.get());
            Map<String, String> hash = redis().hgetall(base + job.id());
            assertEquals("1", hash.get("stc"), "stalledCounter");
            assertEquals("2", hash.get("ats"), "started by the dead worker and by the live one");
            assertEquals("1", hash.get("atm"), "one attempt finished");
            assertEquals("{\"recovered\":true}", hash.get("returnvalue"));
            assertNotNull(redis().zscore(base + "completed", job.id()));
            assertEquals(0, redis().llen(base + "active"));
            assertEquals(0, redis().llen(base + "wait"));

            List<StreamMessage<String, String>> events = redis().xrange(base + "events", Range.create("-", "+"));
            long completions = events.stream().filter(e -> "completed".equals(e.getBody().get("event"))
                    && job.id().equals(e.getBody().get("jobId"))).count();
            long stalls = events.stream().filter(e -> "stalled".equals(e.getBody().get("event"))).count();
            assertEquals(1, completions, "completed exactly once");
            assertEquals(1, stalls);
        }
    }
}
