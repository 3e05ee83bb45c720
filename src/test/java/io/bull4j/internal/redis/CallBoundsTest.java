package io.bull4j.internal.redis;

import io.bull4j.RedisOutcomeUnknownException;
import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Call bounds grouped into ticks behave as one timer task per call did: a bound fires no earlier than its budget,
 * a call that completes first is never timed out, and nothing is left armed.
 */
class CallBoundsTest {
    @Test
    void aBoundFiresAfterItsBudgetNeverBefore() throws Exception {
        long budgetMs = 120;
        CountDownLatch fired = new CountDownLatch(1);
        AtomicLong firedAfterNanos = new AtomicLong();
        long t0 = System.nanoTime();
        CallBounds.arm(budgetMs, () -> {
            firedAfterNanos.set(System.nanoTime() - t0);
            fired.countDown();
        });
        assertTrue(fired.await(10, TimeUnit.SECONDS), "the bound never fired");
        assertTrue(firedAfterNanos.get() >= TimeUnit.MILLISECONDS.toNanos(budgetMs),
                "fired after " + firedAfterNanos.get() / 1e6 + " ms, before its budget of " + budgetMs + " ms");
    }

    @Test
    void aCancelledBoundNeverFires() throws Exception {
        AtomicBoolean cancelledRan = new AtomicBoolean();
        CallBounds.Bound cancelled = CallBounds.arm(30, () -> cancelledRan.set(true));
        cancelled.cancel();
        // a later bound's tick comes after the cancelled one's: once it has fired, the earlier tick has run too,
        // and its callbacks (this trivial one) were handed to the expiry pool before this one's
        CountDownLatch later = new CountDownLatch(1);
        CallBounds.arm(30 + 3 * CallBounds.TICK_MS, later::countDown);
        assertTrue(later.await(10, TimeUnit.SECONDS));
        assertFalse(cancelledRan.get(), "a cancelled bound fired");
    }

    /** A callback that blocks (the caller's code, on a failed call's future) does not hold other bounds back. */
    @Test
    void aBlockedCallbackDoesNotDelayOtherBounds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocking = new CountDownLatch(1);
        CallBounds.arm(10, () -> {
            blocking.countDown();
            try {
                release.await(); // as a .join() on another bull4j call in an exceptionally(...)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            assertTrue(blocking.await(10, TimeUnit.SECONDS));
            CountDownLatch fired = new CountDownLatch(1);
            CallBounds.arm(20, fired::countDown);
            assertTrue(fired.await(10, TimeUnit.SECONDS), "the second bound fired while the first callback blocked");
        } finally {
            release.countDown();
        }
    }

    /** An application that keeps the common pool busy does not hold bull4j's bounds back. */
    @Test
    void aBusyCommonPoolDoesNotDelayABound() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        int n = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        CountDownLatch busy = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
                busy.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        try {
            assertTrue(busy.await(10, TimeUnit.SECONDS), "every common pool thread taken");
            CountDownLatch fired = new CountDownLatch(1);
            CallBounds.arm(20, fired::countDown);
            assertTrue(fired.await(10, TimeUnit.SECONDS), "the bound fired while the common pool was busy");
        } finally {
            release.countDown();
        }
    }

    @Test
    void manyCallsCompletedInTimeLeaveNothingArmedAndNoTimeout() throws Exception {
        AtomicInteger timeouts = new AtomicInteger();
        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<String> reply = new CompletableFuture<>();
            CompletableFuture<String> bounded = Await.within(reply, Duration.ofSeconds(10), "call " + i,
                    timeouts::incrementAndGet, true);
            reply.complete("ok " + i);
            assertEquals("ok " + i, bounded.get(10, TimeUnit.SECONDS));
        }
        assertEquals(0, timeouts.get());
        // pending() counts every bound in the JVM: a call of a previous test's worker that is still closing may
        // hold one for a moment. Those end within milliseconds; a bound these calls left armed would stay for its
        // 10 s budget, so a 3 s wait still catches it.
        TestRedis.eventually(Duration.ofSeconds(3), () -> CallBounds.pending() == 0,
                "no bound left armed after the calls completed (pending at first look: " + CallBounds.pending() + ")");
    }

    /**
     * A transport failure (the connection reset, or dropped by bull4j) of a call that may have been written is held
     * to the call's bound when asked: Redis may still run it until its deadline; without the hold it is at once.
     */
    @Test
    void aTransportFailureIsHeldToTheBoundWhenAsked() throws Exception {
        CompletableFuture<String> reply = new CompletableFuture<>();
        AtomicInteger timeouts = new AtomicInteger();
        CompletableFuture<String> held = Await.within(reply, Duration.ofMillis(300), "held call",
                timeouts::incrementAndGet, true);
        CompletableFuture<String> other = new CompletableFuture<>();
        CompletableFuture<String> atOnce = Await.within(other, Duration.ofSeconds(10), "worker call", () -> { },
                false);
        reply.completeExceptionally(new java.io.IOException("Connection reset by peer"));
        other.completeExceptionally(new java.io.IOException("Connection reset by peer"));
        assertFalse(held.isDone(), "held until its bound");
        assertTrue(atOnce.isCompletedExceptionally(), "reported at once without the hold");
        ExecutionException e = assertThrows(ExecutionException.class, () -> held.get(10, TimeUnit.SECONDS));
        assertInstanceOf(io.bull4j.RedisOutcomeUnknownException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("Connection reset by peer"), e.getCause().getMessage());
        assertFalse(((io.bull4j.RedisException) e.getCause()).isTimeout());
        assertEquals(0, timeouts.get(), "no timeout action for a call that failed");
    }

    @Test
    void aCallWithNoReplyTimesOutAsOutcomeUnknownAndIsCancelled() throws Exception {
        CompletableFuture<String> reply = new CompletableFuture<>();
        CountDownLatch onTimeout = new CountDownLatch(1);
        long t0 = System.nanoTime();
        CompletableFuture<String> bounded = Await.within(reply, Duration.ofMillis(100), "silent call",
                onTimeout::countDown, true);
        ExecutionException e = assertThrows(ExecutionException.class, () -> bounded.get(10, TimeUnit.SECONDS));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertInstanceOf(RedisOutcomeUnknownException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("silent call"), e.getCause().getMessage());
        assertTrue(tookMs >= 100, "timed out after " + tookMs + " ms, before its budget");
        assertTrue(onTimeout.await(10, TimeUnit.SECONDS), "the command in flight was not cancelled");
        // a reply that comes after the bound changes nothing
        reply.complete("late");
        assertTrue(bounded.isCompletedExceptionally());
    }
}
