package io.bull4j.internal.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The bounds of Redis calls, on one daemon thread for the whole JVM, grouped into ticks of {@link #TICK_MS} ms.
 *
 * <p>Why ticks: a timer task per call woke the timer thread on almost every call whenever no other call was
 * pending (a new earliest task signals the thread), which is every call of a sequential caller: a thread wake-up
 * per command. Here a call joins the tick its bound ends in, and only the first call of a tick schedules a task,
 * so the thread wakes at most once per tick. A bound then fires between its budget and one tick later, never
 * earlier. Its callback runs on the common pool, never on the timer thread. The thread ends after a second
 * without ticks, so a closed bull4j leaves no thread behind.
 */
final class CallBounds {
    static final long TICK_MS = 10;
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MS);
    private static final ScheduledThreadPoolExecutor TIMER = timer();
    /** The ticks with a task scheduled, by tick number ({@link System#nanoTime()} / tick). */
    private static final ConcurrentHashMap<Long, Tick> TICKS = new ConcurrentHashMap<>();

    private CallBounds() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "bull4j-call-timeouts");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        timer.setKeepAliveTime(1, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        return timer;
    }

    /** A bound that runs {@code onExpiry} (on the common pool) after {@code budgetMs}, unless cancelled first. */
    static Bound arm(long budgetMs, Runnable onExpiry) {
        Bound bound = new Bound(onExpiry);
        long dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, budgetMs));
        // the tick that ends at or after the due time, so that a bound never fires early
        long tickNo = Math.floorDiv(dueNanos, TICK_NANOS) + 1;
        while (true) {
            Tick tick = TICKS.computeIfAbsent(tickNo, CallBounds::schedule);
            if (tick.add(bound)) {
                bound.tick = tick;
                return bound;
            }
            // that tick fired between the lookup and the add: it is gone from the map, so the next lookup
            // schedules a new one (whose end has passed, so it fires at once)
        }
    }

    private static Tick schedule(long tickNo) {
        Tick tick = new Tick(tickNo);
        TIMER.schedule(tick, Math.max(0, tickNo * TICK_NANOS - System.nanoTime()), TimeUnit.NANOSECONDS);
        return tick;
    }

    /** How many bounds are armed and not yet fired or cancelled (for tests). */
    static int pending() {
        int n = 0;
        for (Tick t : TICKS.values()) {
            n += t.size();
        }
        return n;
    }

    /** One call's bound. */
    static final class Bound {
        private final Runnable onExpiry;
        private volatile Tick tick;

        private Bound(Runnable onExpiry) {
            this.onExpiry = onExpiry;
        }

        /** Drops the bound; once its tick has fired this does nothing. */
        void cancel() {
            Tick t = tick;
            if (t != null) {
                t.remove(this);
            }
        }
    }

    /** The bounds that end within one tick; runs once, at the tick's end. */
    private static final class Tick implements Runnable {
        private final long tickNo;
        private final Set<Bound> bounds = new HashSet<>(); // guarded by this
        private boolean fired; // guarded by this

        Tick(long tickNo) {
            this.tickNo = tickNo;
        }

        synchronized boolean add(Bound b) {
            if (fired) {
                return false;
            }
            bounds.add(b);
            return true;
        }

        synchronized void remove(Bound b) {
            bounds.remove(b);
        }

        synchronized int size() {
            return bounds.size();
        }

        @Override
        public void run() {
            TICKS.remove(tickNo, this);
            List<Bound> due;
            synchronized (this) {
                fired = true;
                due = new ArrayList<>(bounds);
                bounds.clear();
            }
            for (Bound b : due) {
                ForkJoinPool.commonPool().execute(b.onExpiry);
            }
        }
    }
}
