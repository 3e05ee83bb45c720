package io.bull4j.internal.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntToLongFunction;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deadlines from Redis's clock (here: a stand-in for Redis on this host's clock, whose TIME replies reach the
 * JVM after a delay chosen per call). One reply read late, as after a pause of this JVM, must not push every
 * deadline into the past: the background refresh replaced a good sample with the late one's, and for the next
 * 30 s every script arrived "after its deadline" and was refused, Redis being healthy (a review's live run: 187
 * refusals with a TIME reply held back 2.5 s and a 2 s command timeout).
 */
class ServerClockTest {
    private static final Duration BUDGET = Duration.ofSeconds(1);

    /** A RedisFuture that is a CompletableFuture. */
    static final class Reply extends CompletableFuture<List<String>> implements RedisFuture<List<String>> {
        @Override
        public String getError() {
            return null;
        }

        @Override
        public boolean await(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /** Answers TIME at once from this host's clock; the n-th reply (from 0) reaches the caller lateMs(n) later. */
    @SuppressWarnings("unchecked")
    private static RedisClusterAsyncCommands<String, String> redis(IntToLongFunction lateMs) {
        return redis(lateMs, n -> 0);
    }

    /** As above, the n-th reply's clock ahead of this host's by aheadMs(n). */
    @SuppressWarnings("unchecked")
    private static RedisClusterAsyncCommands<String, String> redis(IntToLongFunction lateMs,
                                                                   IntToLongFunction aheadMs) {
        AtomicInteger calls = new AtomicInteger();
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(
                ServerClockTest.class.getClassLoader(), new Class<?>[] {RedisClusterAsyncCommands.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("time")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    int n = calls.getAndIncrement();
                    long us = (System.currentTimeMillis() + aheadMs.applyAsLong(n)) * 1000;
                    List<String> answer = List.of(Long.toString(us / 1_000_000), Long.toString(us % 1_000_000));
                    Reply r = new Reply();
                    CompletableFuture.delayedExecutor(lateMs.applyAsLong(n),
                            TimeUnit.MILLISECONDS).execute(() -> r.complete(answer));
                    return r;
                });
    }

    /** A script sent now reaches the (idle) stand-in at once: it must not be refused as late. */
    private static void assertNotLate(ServerClock clock, String when) {
        assertNotLate(clock, when, 0);
    }

    private static void assertNotLate(ServerClock clock, String when, long aheadMs) {
        long deadline = clock.deadline(BUDGET);
        long serverNow = System.currentTimeMillis() + aheadMs;
        assertTrue(deadline >= serverNow, when + ": a script sent now would be refused, its deadline "
                + (serverNow - deadline) + " ms before Redis's time");
    }

    @Test
    void aLateRefreshReplyKeepsTheBetterSample() {
        ServerClock clock = new ServerClock(redis(n -> n < ServerClock.FIRST_SAMPLES ? 0 : 1500),
                Duration.ofSeconds(5));
        assertNotLate(clock, "after connect");
        clock.refresh().join(); // its reply 1.5 s late
        assertNotLate(clock, "after a late refresh");
    }

    @Test
    void oneLateReplyAtConnectIsOutdoneByTheOthers() {
        ServerClock clock = new ServerClock(redis(n -> n == 0 ? 1500 : 0), Duration.ofSeconds(5));
        assertNotLate(clock, "after connect");
    }

    @Test
    void aBetterRefreshReplacesALateSample() {
        ServerClock clock = new ServerClock(redis(n -> n < ServerClock.FIRST_SAMPLES ? 1500 : 0),
                Duration.ofSeconds(5));
        clock.refresh().join(); // prompt
        assertNotLate(clock, "after a prompt refresh");
    }

    /**
     * The server's clock steps (or a failover reaches a server with another clock): a fresh sample that cannot be
     * right beside the one in use replaces it, whatever its error. Kept for being better, the old offset would make
     * every deadline 5 s early here (every script refused), or late when the step is backwards.
     */
    @Test
    void aSteppedServerClockIsFollowed() {
        ServerClock clock = new ServerClock(redis(n -> n < ServerClock.FIRST_SAMPLES ? 0 : 20,
                n -> n < ServerClock.FIRST_SAMPLES ? 0 : 5_000), Duration.ofSeconds(5));
        clock.refresh().join(); // 5 s ahead now, its reply slower than the first ones'
        assertNotLate(clock, "after the step", 5_000);
        long deadline = clock.deadline(BUDGET);
        assertTrue(deadline <= System.currentTimeMillis() + 5_000 + BUDGET.toMillis(),
                "never later than the caller's report, in the stepped clock");
    }
}
