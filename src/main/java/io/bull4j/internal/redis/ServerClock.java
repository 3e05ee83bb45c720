package io.bull4j.internal.redis;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Redis's clock as seen from here, so that a script can be given a deadline in the server's time: Redis compares
 * it with its own TIME and refuses, before any write, a script that arrives after the caller was told it failed.
 * The offset is measured with TIME: its error is half the round trip, which the deadline allows for, since which
 * half was slow cannot be told. A reply read late (a pause of this JVM, a one-way network delay) makes a sample
 * with a large error, and deadlines that much earlier: so the best of a few samples is taken at connect, and a
 * sample taken in the background once the one in use is older than {@link #REFRESH} replaces it only when its
 * error is no larger (the one in use counts a drift allowance for its age), or when the two cannot both be right
 * (the server's clock stepped, or a failover reached a server with another clock). One late reply no longer
 * pushes every deadline into the past. Local time is monotonic (nanoTime), so a step of this machine's wall clock
 * does not move deadlines.
 */
public final class ServerClock {
    static final Duration REFRESH = Duration.ofSeconds(30);
    /** Samples at connect: the one with the smallest error is kept. */
    static final int FIRST_SAMPLES = 3;
    /** How far the two clocks may drift apart, as ms of error per ms of age: 1/2000 (500 ppm, NTP's slew limit). */
    static final long DRIFT_DIVISOR = 2_000;

    private final RedisClusterAsyncCommands<String, String> commands;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile Sample sample;
    /** When the last refresh was sent (nanoTime): a sample kept for being better is refreshed every REFRESH only. */
    private volatile long lastTryNanos;

    /** Server ms at local nanoTime {@code atNanos}; {@code errorMs} is how far off that may be when taken. */
    private record Sample(long serverMs, long atNanos, long errorMs) {
        /** The error at local time {@code now}: the measured one, and the drift allowance for the age. */
        long errorAt(long now) {
            return errorMs + (now - atNanos) / 1_000_000 / DRIFT_DIVISOR;
        }

        /** Server time minus local time (ms): what two samples of steady clocks agree on within their errors. */
        long offsetMs() {
            return serverMs - atNanos / 1_000_000;
        }
    }

    ServerClock(RedisClusterAsyncCommands<String, String> commands, Duration timeout) {
        this.commands = commands;
        Sample best = null;
        for (int i = 0; i < FIRST_SAMPLES; i++) {
            long before = System.nanoTime();
            List<String> time = Await.result(commands.time(), timeout, "TIME");
            Sample s = sampleOf(time, before, System.nanoTime());
            if (best == null || s.errorMs < best.errorMs) {
                best = s;
            }
        }
        this.sample = best;
        this.lastTryNanos = best.atNanos;
    }

    private static Sample sampleOf(List<String> time, long before, long after) {
        long serverMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        long mid = before + (after - before) / 2;
        return new Sample(serverMs, mid, (after - before) / 2_000_000 + 1);
    }

    /**
     * The latest server time (ms) at which a command sent now may still start, for a caller that gives up after
     * {@code budget}: never later than the moment the caller reports the failure.
     */
    public long deadline(Duration budget) {
        Sample s = sample;
        long now = System.nanoTime();
        if (now - s.atNanos > REFRESH.toNanos() && now - lastTryNanos > REFRESH.toNanos()) {
            refresh();
        }
        return s.serverMs + (now - s.atNanos) / 1_000_000 + budget.toMillis() - s.errorAt(now);
    }

    /** Takes a sample in the background (at most one at a time); completes once it is taken or given up. */
    CompletableFuture<Void> refresh() {
        if (!refreshing.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        long before = System.nanoTime();
        lastTryNanos = before;
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            commands.time().whenComplete((time, error) -> {
                if (error == null) {
                    long after = System.nanoTime();
                    Sample fresh = sampleOf(time, before, after);
                    Sample current = sample;
                    long allowed = fresh.errorMs + current.errorAt(after);
                    // a better sample, or one the current cannot be right beside (a clock step, a failover to a
                    // server with another clock): then the fresh one, whatever its error
                    if (fresh.errorMs <= current.errorAt(after)
                            || Math.abs(fresh.offsetMs() - current.offsetMs()) > allowed) {
                        sample = fresh;
                    }
                }
                refreshing.set(false);
                done.complete(null);
            });
        } catch (RuntimeException e) {
            refreshing.set(false);
            done.complete(null);
        }
        return done;
    }
}
