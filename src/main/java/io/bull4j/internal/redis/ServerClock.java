package io.bull4j.internal.redis;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Redis's clock as seen from here, so that a script can be given a deadline in the server's time: Redis compares
 * it with its own TIME and refuses, before any write, a script that arrives after the caller was told it failed.
 * The offset is measured with TIME at connect (its error is half the round trip, which the deadline allows for)
 * and again in the background once it is older than {@link #REFRESH}. Local time is monotonic (nanoTime), so a
 * step of this machine's wall clock does not move deadlines.
 */
public final class ServerClock {
    static final Duration REFRESH = Duration.ofSeconds(30);

    private final RedisClusterAsyncCommands<String, String> commands;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile Sample sample;

    /** Server ms at local nanoTime {@code atNanos}; {@code errorMs} is how far off that may be. */
    private record Sample(long serverMs, long atNanos, long errorMs) {
    }

    ServerClock(RedisClusterAsyncCommands<String, String> commands, Duration timeout) {
        this.commands = commands;
        long before = System.nanoTime();
        List<String> time = Await.result(commands.time(), timeout, "TIME");
        this.sample = sampleOf(time, before, System.nanoTime());
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
        if (now - s.atNanos > REFRESH.toNanos()) {
            refresh();
        }
        return s.serverMs + (now - s.atNanos) / 1_000_000 + budget.toMillis() - s.errorMs;
    }

    private void refresh() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        long before = System.nanoTime();
        try {
            commands.time().whenComplete((time, error) -> {
                if (error == null) {
                    // a slow reply only widens the error, which makes deadlines earlier: safe either way
                    sample = sampleOf(time, before, System.nanoTime());
                }
                refreshing.set(false);
            });
        } catch (RuntimeException e) {
            refreshing.set(false);
        }
    }
}
