package io.bull4j;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The cancellation of a running job, which its processor can check, wait on or react to: bull4j's counterpart of the
 * {@code AbortSignal} that BullMQ hands a processor. A job is cancelled by {@link Worker#cancelJob},
 * {@link Worker#cancelAllJobs}, {@link Queue#cancelJob} (from any process) or its timeout
 * ({@link JobOptions.Builder#timeout}); its processor's thread is interrupted too, for blocking code.
 *
 * <pre>{@code
 * Worker worker = new Worker("exports", job -> {
 *     Cancellation cancel = job.cancellation();
 *     for (Page page : pages(job)) {
 *         cancel.throwIfCancelled();            // a busy loop checks
 *         write(page);                          // blocking I/O sees the interrupt
 *     }
 *     return "done";
 * });
 * }</pre>
 *
 * <p>Once cancelled, the attempt fails with {@link #reason()} as its failed reason, whatever the processor then
 * returns or throws, and is retried as any failure per the job's attempts, unless the processor throws an
 * {@link UnrecoverableException}. A processor that has not ended a grace period after the cancellation is let go:
 * the worker records the failure, frees its slot, and refuses the late outcome (the lock token no longer matches).
 * Thread-safe; nothing to close.
 */
public final class Cancellation {
    private static final Logger log = LoggerFactory.getLogger(Cancellation.class);
    /** The handle of a job no worker runs here: it is never cancelled. */
    static final Cancellation NEVER = new Cancellation(false);

    private final boolean cancellable;
    private final CountDownLatch cancelled = new CountDownLatch(1);
    private final List<Runnable> actions = new ArrayList<>(); // guarded by this
    private volatile String reason;

    private Cancellation(boolean cancellable) {
        this.cancellable = cancellable;
    }

    /** A handle for one attempt of a job that a worker runs. */
    static Cancellation create() {
        return new Cancellation(true);
    }

    /** {@return whether the job has been cancelled} */
    public boolean isCancelled() {
        return reason != null;
    }

    /** {@return why the job was cancelled (the failed reason it gets), or null while it is not} */
    public String reason() {
        return reason;
    }

    /**
     * Throws when the job has been cancelled; a busy loop calls it between steps.
     *
     * @throws CancellationException with {@link #reason()} as its message, when cancelled
     */
    public void throwIfCancelled() {
        String r = reason;
        if (r != null) {
            throw new CancellationException(r);
        }
    }

    /**
     * Waits until the job is cancelled, at most {@code timeout}.
     *
     * @param timeout how long to wait; zero or more (past what a long holds in nanoseconds: as long as it takes)
     * @return whether the job is cancelled
     * @throws InterruptedException when the waiting thread is interrupted (a cancellation interrupts the processor's
     *     own thread, so the processor itself sees this or {@code true})
     */
    public boolean await(Duration timeout) throws InterruptedException {
        ValidationException.check(timeout != null && !timeout.isNegative(), "timeout", "must be zero or positive");
        long nanos;
        try {
            nanos = timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE; // past ~292 years: as long as it takes, as CountDownLatch saturates
        }
        return cancelled.await(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code action} once when the job is cancelled (at once, on this thread, if it already is), for code that
     * an interrupt does not stop: closing a socket or a stream ends a read blocked on it. The action runs on the
     * cancelling thread and must be quick; an exception it throws is logged and swallowed.
     *
     * @param action what to run
     */
    public void onCancel(Runnable action) {
        ValidationException.check(action != null, "action", "must not be null");
        if (!cancellable) {
            return;
        }
        synchronized (this) {
            if (reason == null) {
                actions.add(action);
                return;
            }
        }
        run(action);
    }

    /**
     * Marks the job cancelled with {@code why} and wakes the waiters; false when already cancelled (the first reason
     * stays). The {@link #onCancel} actions run later, in {@link #runActions()}, outside the caller's locks.
     */
    boolean mark(String why) {
        synchronized (this) {
            if (!cancellable || reason != null) {
                return false;
            }
            reason = why;
        }
        cancelled.countDown();
        return true;
    }

    /** Runs the actions registered before {@link #mark}, once. */
    void runActions() {
        List<Runnable> toRun;
        synchronized (this) {
            toRun = new ArrayList<>(actions);
            actions.clear();
        }
        toRun.forEach(Cancellation::run);
    }

    private static void run(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            log.warn("a cancellation action threw", e);
        }
    }

    @Override
    public String toString() {
        String r = reason;
        return r == null ? "Cancellation{not cancelled}" : "Cancellation{cancelled: " + r + "}";
    }
}
