package io.bull4j.internal.redis;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The bounds of Redis calls, on one daemon thread for the whole JVM, grouped into ticks of {@link #TICK_MS} ms.
 *
 * <p>Why: a timer task per call woke the timer thread on almost every call whenever no other call was pending (a
 * new earliest task signals it), which is every call of a sequential caller: a thread wake-up per command. Here a
 * call only joins the tick its bound ends in, and the thread sweeps the ticks that are due: at the earliest
 * pending tick, and at least once a second while bounds are pending, so a sequential caller costs it about one
 * wake-up a second. A bound fires between its budget and one tick later, never earlier; its callback runs on a
 * pool of bull4j's own that adds a thread whenever all are busy, never on the timer thread nor on the common pool:
 * what a failed call's future runs next is the caller's code, which may block (even on another bull4j call), and
 * an application may keep the common pool busy; either would hold the other bounds back. With nothing pending no
 * sweep is planned, and the threads end a second later, so a closed bull4j leaves no thread behind.
 */
final class CallBounds {
    static final long TICK_MS = 10;
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MS);
    /** The longest gap between sweeps while bounds are pending: 1 s. */
    private static final long SWEEP_TICKS = 100;
    private static final ScheduledThreadPoolExecutor TIMER = timer();
    private static final ThreadPoolExecutor EXPIRIES = expiries();
    private static final Object LOCK = new Object();
    /** Pending bounds by the tick they end in ({@link System#nanoTime()} / tick, rounded up). Guarded by LOCK. */
    private static final TreeMap<Long, Set<Bound>> TICKS = new TreeMap<>();
    /** The tick of the next planned sweep, or Long.MAX_VALUE when none is. Guarded by LOCK. */
    private static long nextSweepTick = Long.MAX_VALUE;

    private CallBounds() {
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "bull4j-call-timeouts");
            t.setDaemon(true);
            return t;
        });
        timer.setKeepAliveTime(1, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        return timer;
    }

    private static ThreadPoolExecutor expiries() {
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "bull4j-call-expiry");
            t.setDaemon(true);
            return t;
        });
    }

    private static long currentTick() {
        return Math.floorDiv(System.nanoTime(), TICK_NANOS);
    }

    /** A bound that runs {@code onExpiry} (on bull4j's expiry pool) after {@code budgetMs}, unless cancelled first. */
    static Bound arm(long budgetMs, Runnable onExpiry) {
        long dueNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, budgetMs));
        // the tick that ends at or after the due time, so that a bound never fires early
        Bound bound = new Bound(Math.floorDiv(dueNanos, TICK_NANOS) + 1, onExpiry);
        synchronized (LOCK) {
            TICKS.computeIfAbsent(bound.tickNo, t -> new HashSet<>()).add(bound);
            planSweep(Math.min(bound.tickNo, currentTick() + SWEEP_TICKS));
        }
        return bound;
    }

    /** Plans a sweep at the end of {@code tick} unless one is planned by then. Holds LOCK. */
    private static void planSweep(long tick) {
        if (tick < nextSweepTick) {
            nextSweepTick = tick;
            TIMER.schedule(() -> sweep(tick), Math.max(0, tick * TICK_NANOS - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }
    }

    private static void sweep(long plannedTick) {
        List<Bound> due = new ArrayList<>();
        synchronized (LOCK) {
            long now = currentTick();
            Iterator<Map.Entry<Long, Set<Bound>>> it = TICKS.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, Set<Bound>> e = it.next();
                if (e.getKey() <= now) {
                    due.addAll(e.getValue());
                    it.remove();
                } else if (e.getValue().isEmpty()) {
                    it.remove(); // every call of that tick completed in time
                }
            }
            if (plannedTick == nextSweepTick || nextSweepTick <= now) {
                nextSweepTick = Long.MAX_VALUE; // this was the planned sweep (or a later one is overdue)
            }
            if (!TICKS.isEmpty()) {
                planSweep(Math.min(TICKS.firstKey(), now + SWEEP_TICKS));
            }
        }
        for (Bound b : due) {
            EXPIRIES.execute(b.onExpiry);
        }
    }

    /** How many bounds are armed and not yet fired or cancelled (for tests). */
    static int pending() {
        synchronized (LOCK) {
            return TICKS.values().stream().mapToInt(Set::size).sum();
        }
    }

    /** One call's bound. */
    static final class Bound {
        private final long tickNo;
        private final Runnable onExpiry;

        private Bound(long tickNo, Runnable onExpiry) {
            this.tickNo = tickNo;
            this.onExpiry = onExpiry;
        }

        /** Drops the bound; once it has fired this does nothing. */
        void cancel() {
            synchronized (LOCK) {
                Set<Bound> tick = TICKS.get(tickNo);
                if (tick != null) {
                    tick.remove(this);
                }
            }
        }
    }
}
