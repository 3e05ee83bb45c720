package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A worker's finish that is in flight when its connection is reset (Redis killed the client, restarted, a proxy or
 * a failover dropped it). Redis closed that connection itself, so the finish was never run; the worker retries it
 * while the job's lock can still be its own. A job whose lockDuration is shorter than the command timeout must not
 * lose its finish (and run a second time after the stalled check) because the reset's failure is only reported at
 * the call's bound, a command timeout later.
 */
class FinishOnResetConnectionTest {
    private static final Duration WAIT = Duration.ofSeconds(40);

    /** At concurrency 1 the processor's thread sends the finish; at 40 the finish batcher does. */
    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {1, 40})
    void aFinishInFlightWhenItsConnectionIsResetIsRetriedWithinTheLock(int concurrency) throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri())) { // command timeout 10 s
            RedisCommands<String, String> admin = server.sync();
            String q = queueName("finish-reset");
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                Worker worker = new Worker(q, job -> {
                    if (runs.incrementAndGet() == 1) {
                        started.countDown();
                        assertTrue(release.await(30, TimeUnit.SECONDS), "released");
                    }
                    return "done";
                }, WorkerOptions.builder().connection(conn).concurrency(concurrency).lockDuration(Duration.ofSeconds(4))
                        .stalledInterval(Duration.ofSeconds(1)).drainDelay(Duration.ofSeconds(1)).build());
                try {
                    String id = queue.add("once", Map.of()).id();
                    assertTrue(started.await(20, TimeUnit.SECONDS), "the processor started");
                    // Redis holds every write (the finish among them) until it is unpaused
                    assertEquals("OK", admin.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(10_000).add("WRITE")));
                    release.countDown();
                    eventually(WAIT, () -> Arrays.stream(admin.clientList().split("\n"))
                            .anyMatch(l -> l.contains("cmd=evalsha") && l.contains("flags=b")),
                            "the finish is sent and held by the pause");
                    // the connections are reset by Redis: what they held is dropped, never run
                    admin.clientKill(KillArgs.Builder.typeNormal().skipme(true));
                    admin.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));

                    eventually(WAIT, () -> admin.zscore("bull:" + q + ":completed", id) != null, "job completed");
                    assertEquals(1, runs.get(), "the processor ran once");
                    assertNull(admin.hget("bull:" + q + ":" + id, "stc"), "never counted as stalled");
                    assertEquals("\"done\"", admin.hget("bull:" + q + ":" + id, "returnvalue"));
                } finally {
                    release.countDown();
                    worker.close();
                }
            }
        }
    }

    /**
     * The stalled check runs on the scheduler thread that renews the locks. One cut off by a reset used to be held
     * to its bound (the command timeout): the renewals waited behind it, the running job's lock (6 s) expired, and
     * the worker's own next check moved the job, still running, back to wait: it ran twice.
     */
    @org.junit.jupiter.api.Test
    void aStalledCheckCutOffByAResetDoesNotHoldTheLockRenewalsBack() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri())) { // command timeout 10 s
            RedisCommands<String, String> admin = server.sync();
            String q = queueName("stalled-reset");
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch release = new CountDownLatch(1);
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                // renewed every 5 s, checked every 1 s: right after a renewal the next script is a stalled check
                Worker worker = new Worker(q, job -> {
                    runs.incrementAndGet();
                    return release.await(40, TimeUnit.SECONDS);
                }, WorkerOptions.builder().connection(conn).lockDuration(Duration.ofSeconds(6))
                        .lockRenewTime(Duration.ofSeconds(5)).stalledInterval(Duration.ofSeconds(1))
                        .drainDelay(Duration.ofSeconds(1)).build());
                try {
                    String id = queue.add("long", Map.of()).id();
                    String lock = "bull:" + q + ":" + id + ":lock";
                    eventually(WAIT, () -> runs.get() == 1, "the processor started");
                    eventually(WAIT, () -> admin.pttl(lock) < 3_000, "the lock aged");
                    eventually(WAIT, () -> admin.pttl(lock) > 5_500, "the lock was just renewed");
                    assertEquals("OK", admin.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(10_000).add("WRITE")));
                    eventually(WAIT, () -> Arrays.stream(admin.clientList().split("\n"))
                            .anyMatch(l -> l.contains("cmd=evalsha") && l.contains("flags=b")),
                            "the stalled check is sent and held by the pause");
                    admin.clientKill(KillArgs.Builder.typeNormal().skipme(true));
                    admin.dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
                    // past the lock's 6 s and the command timeout: the lock must have been renewed meanwhile
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);
                    eventually(WAIT, () -> System.nanoTime() > until || runs.get() > 1, "12 s passed");
                    assertEquals(1, runs.get(), "the running job was not taken from its worker");
                    assertNull(admin.hget("bull:" + q + ":" + id, "stc"), "never counted as stalled");
                    release.countDown();
                    eventually(WAIT, () -> admin.zscore("bull:" + q + ":completed", id) != null, "job completed");
                    assertEquals(1, runs.get(), "the processor ran once");
                } finally {
                    release.countDown();
                    worker.close();
                }
            }
        }
    }
}
