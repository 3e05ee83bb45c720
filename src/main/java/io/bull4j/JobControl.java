package io.bull4j;

import io.bull4j.internal.script.CancelRequests;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The attempts a worker is running, for cancellation and timeouts. Cancelling one marks its {@link Cancellation},
 * interrupts its thread, and gives it a grace period; a processor still running after it is let go: the runner
 * records the failure and frees the slot at once ({@link #onLetGo}), and the processor's late outcome is refused by
 * the token check. Timers and the polling of cancel requests from other processes run on the worker's scheduler
 * thread.
 */
final class JobControl {
    private static final Logger log = LoggerFactory.getLogger(JobControl.class);
    /** How often a worker with running jobs reads the cancel requests of other processes. */
    static final long REMOTE_POLL_MS = 1_000;
    /** How long a cancel request is kept for the worker to read it. */
    static final long REQUEST_KEEP_MS = 60_000;
    /** The failed reason of a job cancelled without a reason. */
    static final String DEFAULT_REASON = "job cancelled";

    private static final int RUNNING = 0;
    private static final int ENDED = 1;
    private static final int LET_GO = 2;

    private final QueueContext ctx;
    private final ScheduledExecutorService scheduler;
    private final long graceMs;
    private final Duration defaultTimeout;
    private final Map<String, Run> runs = new ConcurrentHashMap<>();
    private volatile Consumer<Run> letGo = run -> { };

    /** One attempt being processed. */
    static final class Run {
        final Job job;
        final Thread thread;
        /** Whether the chain that runs this attempt still holds its slot: whoever clears it releases the slot. */
        final AtomicBoolean slot;
        final Cancellation cancellation = Cancellation.create();
        private int state = RUNNING; // guarded by this
        private ScheduledFuture<?> timeout; // guarded by this
        /** Counted down once a let-go's failure write has ended (written or given up). */
        private final java.util.concurrent.CountDownLatch letGoWritten = new java.util.concurrent.CountDownLatch(1);

        Run(Job job, Thread thread, AtomicBoolean slot) {
            this.job = job;
            this.thread = thread;
            this.slot = slot;
        }

        /**
         * The failure recorded for a cancelled attempt: the cancellation's reason as the failed reason, retried as
         * any failure unless the processor threw an {@link UnrecoverableException}.
         */
        Throwable failure(Throwable thrown) {
            String why = cancellation.reason();
            if (thrown instanceof UnrecoverableException) {
                return new UnrecoverableException(why);
            }
            CancellationException e = new CancellationException(why);
            if (thrown != null) {
                e.initCause(thrown);
            }
            return e;
        }
    }

    JobControl(QueueContext ctx, ScheduledExecutorService scheduler, long graceMs, Duration defaultTimeout) {
        this.ctx = ctx;
        this.scheduler = scheduler;
        this.graceMs = graceMs;
        this.defaultTimeout = defaultTimeout;
    }

    /** Told when a cancelled attempt is let go; it records the failure and frees the slot. */
    void onLetGo(Consumer<Run> action) {
        this.letGo = action;
    }

    /** Registers an attempt about to run on {@code thread}, hands its job the handle, and starts its timeout. */
    Run start(Job job, Thread thread, AtomicBoolean slot) {
        Run run = new Run(job, thread, slot);
        job.attachCancellation(run.cancellation);
        runs.put(job.id(), run);
        Duration timeout = defaultTimeout;
        String rawOpts = job.fields().get("opts");
        if (rawOpts != null && rawOpts.contains("\"timeout\"") && job.opts().timeout() != null) {
            timeout = job.opts().timeout(); // most jobs have none: their options are not parsed for it
        }
        if (timeout != null) {
            String why = "job timed out after " + timeout.toMillis() + " ms";
            synchronized (run) {
                run.timeout = schedule(() -> cancel(run, why), timeout.toMillis());
            }
        }
        return run;
    }

    /**
     * The processor returned or threw: from now on nothing cancels or lets go of the attempt. Returns false when it
     * was let go already (its outcome is late and must not be counted).
     */
    boolean end(Run run) {
        runs.remove(run.job.id(), run);
        synchronized (run) {
            if (run.timeout != null) {
                run.timeout.cancel(false);
            }
            if (run.state != RUNNING) {
                return false;
            }
            run.state = ENDED;
            return true;
        }
    }

    /**
     * Close, after its timeout: interrupts the processors still running, telling {@code marking} each job first. As
     * a cancellation, only while the processor runs: never into the thread's write of an outcome.
     */
    void interruptRunning(Consumer<String> marking) {
        for (Run run : new ArrayList<>(runs.values())) {
            synchronized (run) {
                if (run.state == RUNNING) {
                    marking.accept(run.job.id());
                    run.thread.interrupt();
                }
            }
        }
    }

    /** Cancels this worker's running attempt of the job; false when it runs none (or it is already cancelled). */
    boolean cancel(String jobId, String reason) {
        Run run = runs.get(jobId);
        return run != null && cancel(run, reason);
    }

    /** Cancels every attempt this worker runs; returns how many. */
    int cancelAll(String reason) {
        int n = 0;
        for (Run run : new ArrayList<>(runs.values())) {
            n += cancel(run, reason) ? 1 : 0;
        }
        return n;
    }

    private boolean cancel(Run run, String reason) {
        String why = reason == null || reason.isEmpty() ? DEFAULT_REASON : reason;
        synchronized (run) {
            if (run.state != RUNNING || !run.cancellation.mark(why)) {
                return false;
            }
            run.thread.interrupt(); // only while the processor runs: never into the outcome's Redis write
            schedule(() -> letGo(run), graceMs);
        }
        log.info("job {} of queue {} cancelled: {}", run.job.id(), ctx.name(), why);
        run.cancellation.runActions();
        return true;
    }

    private void letGo(Run run) {
        synchronized (run) {
            if (run.state != RUNNING) {
                return;
            }
            run.state = LET_GO;
        }
        runs.remove(run.job.id(), run);
        log.warn("job {} of queue {} did not end within {} ms of its cancellation ({}); it is failed and its slot "
                + "freed, and its processor's late outcome will be refused", run.job.id(), ctx.name(), graceMs,
                run.cancellation.reason());
        try {
            letGo.accept(run);
        } finally {
            run.letGoWritten.countDown();
        }
    }

    /**
     * For the processor's thread of an attempt that was let go, once it ends: waits (up to {@code maxMs}) until the
     * let-go's failure is written, so that its late outcome cannot overtake the failure and complete a cancelled job.
     */
    void awaitLetGo(Run run, long maxMs) {
        try {
            if (!run.letGoWritten.await(maxMs, TimeUnit.MILLISECONDS)) {
                log.warn("job {} of queue {}: the failure of its cancelled attempt is still being written after {} ms",
                        run.job.id(), ctx.name(), maxMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One tick: reads the cancel requests other processes wrote for the running attempts, and honours them. */
    void pollRequests() {
        if (runs.isEmpty()) {
            return;
        }
        List<String> ids = new ArrayList<>(runs.keySet());
        try {
            Map<String, CancelRequests.Request> found = ctx.await(CancelRequests.read(ctx.redis(), ctx.keys, ids),
                    "MGET cancel");
            found.forEach((id, request) -> {
                Run run = runs.get(id);
                if (run != null && request.token().equals(run.job.token())) {
                    cancel(run, request.reason());
                }
            });
        } catch (RuntimeException e) {
            log.debug("could not read the cancel requests of queue {}", ctx.name(), e);
        }
    }

    private ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        try {
            return scheduler.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return null; // the worker is closing: close interrupts and lets go of its jobs itself
        }
    }
}
