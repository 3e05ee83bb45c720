package io.bull4j;

import io.bull4j.internal.script.LuaScript;
import io.bull4j.support.AclUser;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.ReplyCuttingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A fetch whose answer is lost after Redis applied it: {@code moveToActive} takes the job under the worker's token,
 * then the connection is reset before the reply gets back. The worker cannot know which job it took, but only
 * that fetch used the token: it finds the job by its lock and gives it back to wait at once, so the job runs soon
 * and once, instead of staying locked by nobody until the stalled check recovers it and counts a stall.
 */
class WorkerFetchLostReplyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aJobTakenByAFetchWhoseReplyIsLostIsGivenBackAndRunsOnce() throws Exception {
        RedisTestServer redisServer = RedisTestServer.get();
        try (ReplyCuttingProxy proxy = new ReplyCuttingProxy(redisServer.host(), redisServer.port())) {
            String viaProxy = "redis://127.0.0.1:" + proxy.port();
            try (Bull4jConnection conn = Bull4jConnection.create(AclUser.enabled()
                    ? AclUser.withCredentials(viaProxy) : viaProxy)) {
                String q = queueName("lost-fetch");
                Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
                WorkerTestKit.Recorder rec = new WorkerTestKit.Recorder();
                try (Queue queue = new Queue(q, queueOptions())) {
                    // the stalled check comes far too late for the wait below: only the worker's own recovery can
                    Worker worker = new Worker(q, job -> {
                        runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
                        return "done";
                    }, WorkerOptions.builder().connection(conn).concurrency(1).drainDelay(Duration.ofSeconds(1))
                            .lockDuration(Duration.ofSeconds(60)).stalledInterval(Duration.ofMinutes(2)).build(), rec);
                    try {
                        // moveToActive loaded through this connection, so that the fetch below is one EVALSHA
                        queue.add("warm", Map.of(), JobOptions.builder().jobId("w").build());
                        eventually(WAIT, () -> rec.calls.stream().anyMatch(c -> c.startsWith("completed:w@")),
                                "warm-up done");
                        eventually(WAIT, () -> redis().lrange(key(q, "active"), 0, -1).isEmpty(), "w finished");

                        proxy.armOn(LuaScript.load("moveToActive").sha());
                        queue.add("lost", Map.of(), JobOptions.builder().jobId("a").build());
                        // Redis ran the fetch (a active, under the worker's lock); its reply is held back
                        eventually(WAIT, () -> redis().lrange(key(q, "active"), 0, -1).contains("a")
                                && redis().exists(key(q, "a:lock")) == 1, "a taken");
                        assertTrue(proxy.triggered(), "the fetch went through the proxy");
                        proxy.cut();

                        eventually(WAIT, () -> rec.calls.stream().anyMatch(c -> c.startsWith("completed:a@")),
                                "a completed well before its lock (60 s) could expire");
                        assertEquals(1, runs.get("a").get(), "a ran once");
                        assertTrue(rec.calls.stream().noneMatch(c -> c.startsWith("stalled:")), rec.calls.toString());
                        assertTrue(events(q, "stalled", "a").isEmpty(), "a never stalled");
                        assertNull(hash(q, "a").get("stc"), "no stall counted against a");
                        assertEquals("\"done\"", hash(q, "a").get("returnvalue"));
                    } finally {
                        worker.close();
                    }
                }
            }
        }
    }
}
