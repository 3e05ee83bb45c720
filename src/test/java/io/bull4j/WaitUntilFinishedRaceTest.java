package io.bull4j;

import io.bull4j.internal.script.LuaScript;
import io.bull4j.support.AclUser;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.ReplyCuttingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code waitUntilFinished(timeout)} reads the job's state before it opens its reader: a job removed on completion
 * between the two must still be answered from its {@code completed} event, since the wait had begun. A proxy holds
 * back the answer of the first state read (the job still active in Redis) while the job completes and is removed;
 * then the answer goes on. Before the wait's reader started from the stream's end as it was before the read, it
 * started after the event and the wait said "not found".
 */
class WaitUntilFinishedRaceTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aJobRemovedBetweenTheStateReadAndTheReadersStartGivesItsResult() throws Exception {
        RedisTestServer server = RedisTestServer.get();
        String q = queueName("wait-race");
        CountDownLatch finish = new CountDownLatch(1);
        try (ReplyCuttingProxy proxy = new ReplyCuttingProxy(server.host(), server.port())) {
            String viaProxy = "redis://127.0.0.1:" + proxy.port();
            try (Bull4jConnection slow = Bull4jConnection.create(AclUser.enabled()
                    ? AclUser.withCredentials(viaProxy) : viaProxy);
                 Queue queue = new Queue(q, QueueOptions.builder().connection(slow).build());
                 Worker worker = new Worker(q, job -> {
                     if (job.name().equals("held")) {
                         finish.await();
                     }
                     return Map.of("out", job.name());
                 }, workerOptions().build())) { // the worker's connection does not go through the proxy
                // isFinished loaded, so that the wait's first read is one EVALSHA
                assertEquals(Map.of("out", "warm"), queue.add("warm", Map.of()).waitUntilFinished(WAIT)
                        .returnValue(Map.class));

                Job job = queue.add("held", Map.of(), JobOptions.builder().removeOnComplete(true).build());
                eventually(WAIT, () -> redis().lrange(key(q, "active"), 0, -1).contains(job.id()), "held active");
                proxy.armOn(LuaScript.load("isFinished").sha());
                CompletableFuture<Job> done = CompletableFuture.supplyAsync(() -> job.waitUntilFinished(WAIT));
                eventually(WAIT, proxy::triggered, "the wait read the job's state (active)");

                finish.countDown();
                eventually(WAIT, () -> redis().exists(key(q, job.id())) == 0, "completed and removed");
                proxy.release();

                Job finished = done.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
                assertEquals(Map.of("out", "held"), finished.returnValue(Map.class));
            }
        }
    }
}
