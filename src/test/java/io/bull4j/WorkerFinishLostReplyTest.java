package io.bull4j;

import io.bull4j.internal.script.LuaScript;
import io.bull4j.support.AclUser;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.ReplyCuttingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A finish whose answer is lost after Redis applied it: the worker's {@code moveToFinished} reaches Redis and runs
 * (the job completes and, in the same script, the next job is fetched under the worker's next token), then the
 * connection is reset before the reply gets back (a proxy holds the reply back, the test sees the job completed in
 * Redis, then resets the connection). The worker sees an unknown outcome, retries, and the retry is refused: the
 * lock is gone and the job is not active. The worker must recognise that its own earlier try was applied: report
 * the job completed once, report no error for it, and run the job the applied try fetched at once, instead of
 * leaving it locked by nobody until the stalled check takes it (a stall counted against the job).
 */
class WorkerFinishLostReplyTest {
    private static final Duration WAIT = Duration.ofSeconds(40);

    @Test
    void aFinishAppliedWhoseReplyIsLostIsRecognisedAndItsFetchedJobRunsOnce() throws Exception {
        lostReply(true, false);
    }

    @Test
    void aFinishAppliedThatFetchedNothingIsRecognisedByItsFinishTime() throws Exception {
        lostReply(false, false);
    }

    @Test
    void withRemoveOnCompleteTheJobItFetchedShowsThatItWasApplied() throws Exception {
        lostReply(true, true);
    }

    /**
     * Job a's finish is applied and its reply lost; with {@code next}, job b waits, so that a's finish fetches it;
     * with {@code removeOnComplete}, a's hash is deleted by its finish, so that only b tells that it was applied.
     */
    private void lostReply(boolean next, boolean removeOnComplete) throws Exception {
        RedisTestServer redisServer = RedisTestServer.get();
        try (ReplyCuttingProxy proxy = new ReplyCuttingProxy(redisServer.host(), redisServer.port())) {
            String viaProxy = "redis://127.0.0.1:" + proxy.port();
            try (Bull4jConnection conn = Bull4jConnection.create(AclUser.enabled()
                    ? AclUser.withCredentials(viaProxy) : viaProxy)) {
                String q = queueName("lost-reply");
                Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
                CountDownLatch aStarted = new CountDownLatch(1);
                CountDownLatch releaseA = new CountDownLatch(1);
                WorkerTestKit.Recorder rec = new WorkerTestKit.Recorder();
                try (Queue queue = new Queue(q, queueOptions())) {
                    Worker worker = new Worker(q, job -> {
                        runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                        if (job.id().equals("a")) {
                            aStarted.countDown();
                            assertTrue(releaseA.await(30, TimeUnit.SECONDS), "released");
                        }
                        return "done " + job.id();
                    }, WorkerOptions.builder().connection(conn).concurrency(1).drainDelay(Duration.ofSeconds(1))
                            .lockDuration(Duration.ofSeconds(5)).stalledInterval(Duration.ofSeconds(1))
                            .removeOnComplete(removeOnComplete ? KeepJobs.none() : KeepJobs.all()).build());
                    worker.addListener(rec);
                    try {
                        // a first job through the same connection: moveToFinished is loaded in Redis, so the
                        // finish below is one EVALSHA (a NOSCRIPT answer would be held back too)
                        queue.add("warm", Map.of(), JobOptions.builder().jobId("w").build());
                        eventually(WAIT, () -> rec.calls.stream().anyMatch(c -> c.startsWith("completed:w@")),
                                "warm-up done");

                        queue.add("first", Map.of(), JobOptions.builder().jobId("a").build());
                        assertTrue(aStarted.await(20, TimeUnit.SECONDS), "a started");
                        if (next) {
                            queue.add("second", Map.of(), JobOptions.builder().jobId("b").build()); // a's finish takes it
                        }

                        proxy.armOn(LuaScript.load("moveToFinished").sha());
                        releaseA.countDown();
                        // Redis ran the finish (a out of active; b fetched in the same script); its reply is held
                        eventually(WAIT, () -> !redis().lrange(key(q, "active"), 0, -1).contains("a")
                                && (removeOnComplete ? redis().exists(key(q, "a")) == 0
                                : redis().zscore(key(q, "completed"), "a") != null)
                                && (!next || redis().lrange(key(q, "active"), 0, -1).contains("b")),
                                "a's finish applied");
                        assertTrue(proxy.triggered(), "the finish went through the proxy");
                        assertTrue(rec.calls.stream().noneMatch(c -> c.startsWith("completed:a@")),
                                "the worker has not heard back yet");
                        proxy.cut();

                        eventually(WAIT, () -> rec.calls.stream().anyMatch(c -> c.startsWith("completed:a@")),
                                "a reported completed");
                        if (next) {
                            eventually(WAIT, () -> rec.calls.stream().anyMatch(c -> c.startsWith("completed:b@")),
                                    "b reported completed");
                            assertEquals(1, runs.get("b").get(), "b ran once");
                            assertEquals(1, rec.calls.stream().filter(c -> c.startsWith("completed:b@")).count(),
                                    rec.calls.toString());
                            assertTrue(events(q, "stalled", "b").isEmpty(), "b never stalled");
                            if (!removeOnComplete) {
                                assertNull(hash(q, "b").get("stc"), "b never counted as stalled");
                                assertEquals("1", hash(q, "b").get("ats"), "b started once");
                            }
                        }
                        assertEquals(1, runs.get("a").get(), "a ran once");
                        assertEquals(1, rec.calls.stream().filter(c -> c.startsWith("completed:a@")).count(),
                                "a reported completed once: " + rec.calls);
                        assertTrue(rec.calls.stream().noneMatch(c -> c.startsWith("failed:")
                                || c.startsWith("stalled:")), rec.calls.toString());
                        List<String> aboutJobs = rec.errors.stream().map(String::valueOf)
                                .filter(m -> m.contains("job a") || m.contains("job b")).toList();
                        assertEquals(List.of(), aboutJobs, "no error reported for a or b");
                        assertEquals(1, events(q, "completed", "a").size(), "one completed event for a");
                        if (!removeOnComplete) {
                            assertEquals("\"done a\"", hash(q, "a").get("returnvalue"));
                        }
                    } finally {
                        releaseA.countDown();
                        worker.close();
                    }
                }
            }
        }
    }
}
