package io.bull4j;

import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.RedisLink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Consumes a queue: fetches jobs, runs the {@link Processor} on each, and records the outcome, with
 * at-least-once delivery. Each job is locked with a token while it runs; the lock is renewed, and a job whose
 * worker dies is recovered by the stalled check of another.
 *
 * <pre>{@code
 * Worker worker = new Worker("emails", job -> {
 *     send(job.data(Email.class));
 *     return Map.of("deliveredAt", Instant.now().toString());
 * }, WorkerOptions.builder().concurrency(10).build());
 * ...
 * worker.close(); // waits for running jobs
 *
 * Worker audit = new Worker("audit", job -> { log.info("job {}", job.id()); }); // no result: a VoidProcessor
 * }</pre>
 *
 * <p>Threads: one fetch thread, one scheduler thread (lock renewal, stalled scans, job timeouts and cancel
 * requests), one event thread for listeners, and the processor executor. Running jobs can be cancelled
 * ({@link #cancelJob}); a worker built without a processor is for manual processing ({@link #getNextJob}).
 * Thread-safe. {@link #close()} is idempotent.
 */
public final class Worker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final WorkerOptions opts;
    private final QueueContext ctx;
    private final boolean ownsConnection;
    private final ExecutorService executor;
    private final boolean ownsExecutor;
    private final ListenerBus bus;
    private final Slots slots;
    private final LockRenewer locks;
    private final StalledChecker stalled;
    private final JobRunner runner;
    private final FetchLoop fetch;
    private final ScheduledExecutorService scheduler;
    private final JobControl control;
    private final Object lifecycle = new Object();
    private final Object pausing = new Object();
    private Thread fetchThread;
    private boolean started;
    private boolean closed;
    /** Counted down when the first close has let go of the jobs: a later close() waits for it. */
    private final java.util.concurrent.CountDownLatch closeDone = new java.util.concurrent.CountDownLatch(1);
    private final boolean manual;

    /**
     * A worker with the default options, on a connection of its own from {@code REDIS_URL} (else
     * {@code redis://localhost:6379}); it starts processing at once.
     *
     * @param queueName the queue to consume
     * @param processor the code run for each job
     * @throws ValidationException when an argument is invalid
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, Processor processor) {
        this(queueName, processor, WorkerOptions.DEFAULTS);
    }

    /**
     * A worker with these options; with {@code autorun} (the default) it starts processing at once.
     *
     * @param queueName the queue to consume
     * @param processor the code run for each job
     * @param options the options
     * @throws ValidationException when an argument is invalid (on Redis Cluster: a queue without a hash tag)
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, Processor processor, WorkerOptions options) {
        this(queueName, processor, options, new WorkerListener[0]);
    }

    /**
     * A worker with a processor that has no result ({@code new Worker("emails", job -> { send(job); })}), with the
     * default options; see {@link VoidProcessor}.
     *
     * @param queueName the queue to consume
     * @param processor the code run for each job; the job completes with a null result
     * @throws ValidationException when an argument is invalid
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, VoidProcessor processor) {
        this(queueName, processor, WorkerOptions.DEFAULTS);
    }

    /**
     * A worker with a processor that has no result, and these options; see {@link VoidProcessor}.
     *
     * @param queueName the queue to consume
     * @param processor the code run for each job; the job completes with a null result
     * @param options the options
     * @throws ValidationException when an argument is invalid (on Redis Cluster: a queue without a hash tag)
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, VoidProcessor processor, WorkerOptions options) {
        this(queueName, processor, options, new WorkerListener[0]);
    }

    /**
     * A worker with a processor that has no result, and listeners registered before it starts; see
     * {@link VoidProcessor} and {@link #Worker(String, Processor, WorkerOptions, WorkerListener...)}.
     *
     * @param queueName the queue to consume
     * @param processor the code run for each job; the job completes with a null result
     * @param options the options
     * @param listeners listeners to register first
     * @throws ValidationException when an argument is invalid (on Redis Cluster: a queue without a hash tag)
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, VoidProcessor processor, WorkerOptions options, WorkerListener... listeners) {
        this(queueName, withNullResult(processor), options, listeners);
    }

    /**
     * With listeners registered before the worker starts, so that none of its first events is missed (with
     * {@code autorun}, jobs may be taken before a later {@link #addListener} call returns).
     *
     * @param queueName the queue to consume
     * @param processor the code run for each job
     * @param options the options
     * @param listeners listeners to register first
     * @throws ValidationException when an argument is invalid (on Redis Cluster: a queue without a hash tag)
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, Processor processor, WorkerOptions options, WorkerListener... listeners) {
        this(queueName, requireProcessor(processor), options, listeners, false);
    }

    /**
     * A worker without a processor, for manual processing as in BullMQ: it never fetches on its own (there is no
     * fetch loop, {@code autorun} is ignored and {@link #run()} refuses). The caller takes jobs with
     * {@link #getNextJob(String, boolean)} and finishes them with {@link Job#moveToCompleted},
     * {@link Job#moveToFailed} and the other transitions, passing the token it chose; it owns each lock, and must
     * renew it ({@link Job#extendLock(String, Duration)}) more often than the lock duration, or the stalled check
     * of another worker takes the job back.
     *
     * <pre>{@code
     * try (Worker worker = new Worker("exports", WorkerOptions.builder().lockDuration(Duration.ofMinutes(1)).build())) {
     *     String token = UUID.randomUUID().toString();
     *     Job job = worker.getNextJob(token, true);
     *     if (job != null) {
     *         job.moveToCompleted(export(job), token, false);
     *     }
     * }
     * }</pre>
     *
     * @param queueName the queue to take jobs from
     * @param options the options; lock duration, name, limiter, retention and backoff strategy apply
     * @throws ValidationException when an argument is invalid (on Redis Cluster: a queue without a hash tag)
     * @throws RedisException when Redis cannot be reached
     */
    public Worker(String queueName, WorkerOptions options) {
        this(queueName, null, options, new WorkerListener[0], true);
    }

    private Worker(String queueName, Processor processor, WorkerOptions options, WorkerListener[] listeners,
                   boolean manual) {
        ValidationException.check(listeners != null, "listeners", "must not be null");
        for (WorkerListener l : listeners) { // before anything is opened
            ValidationException.check(l != null, "listeners", "must not hold null");
        }
        ValidationException.check(options != null, "options", "must not be null");
        QueueKeys keys = new QueueKeys(options.prefix(), queueName);
        ValidationException.check(!queueName.equals(options.deadLetterQueue()), "deadLetterQueue",
                "must not be the worker's own queue (was \"" + queueName + "\")");
        this.opts = options;
        this.ownsConnection = options.connection() == null;
        Bull4jConnection connection = ownsConnection ? Bull4jConnection.create() : options.connection();
        RedisLink link = connection.link();
        this.ctx = new QueueContext(keys, link, options.objectMapper(), options.clock());
        try {
            checkOnServer(link, keys, queueName, options);
        } catch (RuntimeException e) {
            if (ownsConnection) {
                connection.close();
            }
            throw e;
        }
        this.ownsExecutor = options.executor() == null;
        this.executor = ownsExecutor ? ProcessorThreads.create(queueName, options.concurrency(),
                options.virtualThreads()) : options.executor();
        this.bus = new ListenerBus(queueName);
        for (WorkerListener l : listeners) {
            bus.add(l);
        }
        this.slots = new Slots(options.concurrency());
        this.locks = new LockRenewer(ctx, options.lockDuration().toMillis(), bus);
        this.stalled = new StalledChecker(ctx, options.maxStalledCount(), options.stalledInterval().toMillis(), bus);
        Tokens tokens = new Tokens();
        this.runner = new JobRunner(ctx, options, processor, executor, slots, locks, bus, tokens);
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "bull4j-scheduler-" + queueName);
            t.setDaemon(true);
            return t;
        });
        timers.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // job timeouts must not delay a close
        timers.setRemoveOnCancelPolicy(true);
        this.scheduler = timers;
        this.control = new JobControl(ctx, scheduler, Math.min(INTERRUPT_GRACE_MS, options.lockDuration().toMillis()),
                options.timeout());
        runner.control(control);
        this.fetch = new FetchLoop(ctx, options, slots, runner, bus, tokens);
        runner.onQueueDrained(fetch::queueDrained);
        runner.onRateLimited(fetch::rateLimited);
        this.manual = manual;
        if (options.autorun() && !manual) {
            run();
        }
    }

    /** What the server must allow: on Cluster, a dead-letter queue in the worker's slot; the eviction policy. */
    private static void checkOnServer(RedisLink link, QueueKeys keys, String queueName, WorkerOptions options) {
        if (link.isCluster() && options.deadLetterQueue() != null) {
            // a final failure's script moves the job out of active, then writes the dead-letter queue's keys: in
            // another slot that write fails after the first ones were applied, and the job is lost
            QueueKeys dead = new QueueKeys(options.prefix(), options.deadLetterQueue());
            ValidationException.check(dead.hashTag() != null && dead.slot() == keys.slot(), "deadLetterQueue",
                    "on Redis Cluster must share the worker's queue's hash slot (was \"" + options.deadLetterQueue()
                            + "\" for \"" + queueName + "\"): give both one hash tag, e.g. \"{emails}\" and "
                            + "\"{emails}-dead\"");
        }
        if (options.checkEvictionPolicy()) {
            link.checkEvictionPolicy();
        }
    }

    private static Processor requireProcessor(Processor processor) {
        ValidationException.check(processor != null, "processor", "must not be null");
        return processor;
    }

    /**
     * Manual processing: takes the next job and locks it under {@code token}, as BullMQ's
     * {@code worker.getNextJob(token, {block})}. Due delayed jobs are promoted first. The lock lasts the worker's
     * lock duration and is not renewed: the caller renews it ({@link Job#extendLock(String, Duration)}) and ends
     * the job with {@link Job#moveToCompleted}, {@link Job#moveToFailed}, {@link Job#moveToDelayed(Instant, String)}
     * or {@link Job#moveToWait(String)}.
     *
     * @param token the lock token, chosen by the caller (BullMQ's workers use {@code <uuid>:<n>}); not empty
     * @param block whether to wait, up to the drain delay, for a job when none is ready
     * @return the job, or null when none was ready (or the worker is paused, closed or rate limited)
     * @throws ValidationException when the token is empty
     * @throws Bull4jException when this worker has a processor (its own loop takes the jobs)
     * @throws RedisException when Redis fails, also after the fetch took a job scheduler's run but could not add
     *     the scheduler's next run: that run's lock is then released, and the stalled check gives it back
     */
    public Job getNextJob(String token, boolean block) {
        ValidationException.check(token != null && !token.isEmpty(), "token", "must not be null or empty");
        if (!manual) {
            throw new Bull4jException("getNextJob is for a worker without a processor (manual processing)");
        }
        try {
            return ManualJobs.taken(ctx, opts, fetch.takeOne(token, block), token);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Holds every worker of the queue for {@code duration}, as {@link Queue#rateLimit}; a processor then throws
     * {@link RateLimitException} to give its job back without spending an attempt.
     *
     * @param duration how long, at least 1 ms
     */
    public void rateLimit(Duration duration) {
        new QueueLimits(ctx).rateLimit(duration);
    }

    /**
     * Cancels the job if this worker is running it, as BullMQ's {@code worker.cancelJob(id, reason)}: its
     * {@link Job#cancellation()} is marked and its thread interrupted; the attempt then fails with {@code reason}
     * (retried per its attempts, unless the processor throws {@link UnrecoverableException}). A processor that does
     * not end within 2 s (at most the lock duration) is let go: the failure is recorded, its slot freed, and its late
     * outcome refused. To cancel a job that may run in another process, use {@link Queue#cancelJob}.
     *
     * @param jobId the job's id
     * @param reason the failed reason to record; null or empty for "job cancelled"
     * @return whether this worker was running the job (and had not cancelled it yet)
     */
    public boolean cancelJob(String jobId, String reason) {
        ValidationException.check(jobId != null, "jobId", "must not be null");
        return control.cancel(jobId, reason);
    }

    /**
     * Cancels every job this worker is running, as BullMQ's {@code worker.cancelAllJobs(reason)}; see
     * {@link #cancelJob}.
     *
     * @param reason the failed reason to record; null or empty for "job cancelled"
     * @return how many jobs were cancelled
     */
    public int cancelAllJobs(String reason) {
        return control.cancelAll(reason);
    }

    /** Starts processing; the constructor already did unless {@code autorun} is false. */
    public void run() {
        synchronized (lifecycle) {
            if (closed) {
                throw new Bull4jException("worker is closed");
            }
            if (started) {
                throw new Bull4jException("worker is already running");
            }
            if (manual) {
                throw new Bull4jException("a worker without a processor does not run: take jobs with getNextJob");
            }
            started = true;
            long renewMs = opts.lockRenewTime().toMillis();
            scheduler.scheduleWithFixedDelay(guarded(locks::renewAll, "lock renewal"), renewMs, renewMs,
                    TimeUnit.MILLISECONDS);
            scheduler.scheduleWithFixedDelay(guarded(control::pollRequests, "cancel requests"),
                    JobControl.REMOTE_POLL_MS, JobControl.REMOTE_POLL_MS, TimeUnit.MILLISECONDS);
            long stalledMs = opts.stalledInterval().toMillis();
            scheduler.scheduleWithFixedDelay(guarded(stalled::check, "stalled check"), stalledMs, stalledMs,
                    TimeUnit.MILLISECONDS);
            long sweepMs = opts.stalledSweepInterval().toMillis();
            if (sweepMs > 0) {
                scheduler.scheduleWithFixedDelay(guarded(stalled::sweep, "stalled sweep"), sweepMs, sweepMs,
                        TimeUnit.MILLISECONDS);
            }
            // the first stalled check runs before the first fetch, as in BullMQ: jobs recovered from a dead worker
            // go first, and a job this worker takes is not marked as a stalled candidate at once
            fetchThread = new Thread(() -> {
                stalled.check();
                fetch.run();
            }, "bull4j-fetch-" + ctx.name());
            fetchThread.start();
        }
    }

    /**
     * Adds a listener; see {@link WorkerListener} for the thread it runs on. Events of jobs taken before this
     * call are not delivered to it: pass listeners to the constructor to see every event.
     *
     * @param listener the listener
     * @return this worker
     */
    public Worker addListener(WorkerListener listener) {
        bus.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * Removes a listener.
     *
     * @param listener the listener
     */
    public void removeListener(WorkerListener listener) {
        bus.remove(listener);
    }

    /** {@return the name of the queue this worker consumes} */
    public String queueName() {
        return ctx.name();
    }

    /**
     * {@return whether this worker has no processor: it is for manual processing ({@link #getNextJob}) and never
     * runs a fetch loop of its own, so it is never {@link #isRunning() running}}
     */
    public boolean isManual() {
        return manual;
    }

    /**
     * {@return whether the worker has started and is not closed, and its fetch loop has not ended on an unexpected
     * error (a bug or a library mismatch, logged at ERROR and reported to {@code onError}; such a worker takes no
     * more jobs and is to be closed and created again)}
     */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return started && !closed && !fetch.hasDied();
        }
    }

    /**
     * A periodic task that goes on after an unexpected error: a scheduled task that throws is never run again, and
     * a lock renewal that stopped so, silently, would let every running job's lock expire and the job run twice.
     */
    Runnable guarded(Runnable task, String what) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                log.error("worker on {}: the {} failed unexpectedly; it runs again at its next tick", ctx.name(), what,
                        e);
                bus.emit(l -> l.onError(e));
            }
        };
    }

    /** Stops taking new jobs; running jobs go on. */
    public void pause() {
        synchronized (pausing) { // with resume(): the runner and the fetch loop never left in opposite states
            runner.setPaused(true);
            fetch.pause();
        }
    }

    /** Takes jobs again after {@link #pause()} or {@link #drain(Duration)}. */
    public void resume() {
        synchronized (pausing) {
            runner.setPaused(false);
            fetch.resume();
        }
    }

    /** {@return whether this worker is paused (by {@link #pause()} or {@link #drain(Duration)})} */
    public boolean isPaused() {
        return fetch.isPaused();
    }

    /** {@return how many jobs this worker runs now (an idle fetch that holds a slot is not counted)} */
    public int activeCount() {
        return runner.runningCount();
    }

    /**
     * Stops taking jobs and waits up to {@code timeout} for the running ones to finish. The worker stays paused
     * afterwards; {@link #resume()} takes jobs again.
     *
     * @param timeout how long to wait; zero or positive
     * @return how many jobs finished meanwhile, how many still run, and whether the wait timed out
     */
    public DrainResult drain(Duration timeout) {
        ValidationException.check(timeout != null && !timeout.isNegative(), "timeout", "must be zero or positive");
        int before = runner.finishedCount();
        pause();
        boolean idle = awaitIdle(timeout.toMillis());
        return new DrainResult(runner.finishedCount() - before, runner.runningCount(), !idle);
    }

    /**
     * Graceful close: stops fetching, gives back jobs fetched but not started, and waits for running jobs up to
     * {@link WorkerOptions#closeTimeout()} (30 s by default); then it goes on as {@link #close(Duration)}. It
     * returns within about closeTimeout + {@value #INTERRUPT_GRACE_MS} ms + the command timeout, whatever the
     * processors do. A call while another thread's close is under way returns once that one has waited for the
     * running jobs. Called from this worker's own processor or listener, it does not wait for itself: it starts the
     * close on a thread of its own and returns at once; the calling job then ends as usual (its outcome is written)
     * and the close completes after it.
     */
    @Override
    public void close() {
        closeWithin(opts.closeTimeout());
    }

    /**
     * Like {@link #close()}, with {@code timeout} instead of the configured close timeout; {@code Duration.ZERO}
     * is a forced close. After the timeout the running jobs' threads are interrupted. A job that then ends by
     * throwing is not failed (the shutdown is not its fault): it is given back to the front of wait, its start
     * uncounted, for another worker. A job that still does not end within {@value #INTERRUPT_GRACE_MS} ms is let
     * go: a WARN names it, its lock is no longer renewed, and the stalled check recovers it once the lock expires
     * (if it ends meanwhile while still holding its lock, its outcome is written as usual).
     *
     * @param timeout how long to wait for running jobs before interrupting them
     */
    public void close(Duration timeout) {
        ValidationException.check(timeout != null && !timeout.isNegative(), "timeout", "must be zero or positive");
        closeWithin(timeout);
    }

    /** How long interrupted jobs get to end before close lets them go. */
    static final long INTERRUPT_GRACE_MS = 2_000;

    private void closeWithin(Duration timeout) {
        Uninterrupted.run(() -> beginClose(timeout));
    }

    private void beginClose(Duration timeout) {
        boolean ownThread = runner.isJobThread() || bus.isDeliveryThread();
        boolean wasStarted;
        boolean first;
        synchronized (lifecycle) {
            first = !closed;
            closed = true;
            wasStarted = started;
        }
        if (!first) {
            if (!ownThread) {
                awaitFirstClose();
            }
            return;
        }
        // before returning to a processor that closes its own worker: its finish must not fetch a next job
        runner.stopFetchingNext();
        fetch.stop();
        bus.endHolding(); // a job thread waiting for slow listeners goes on, to finish or give its job back
        if (ownThread) {
            // the close waits for the running jobs and the listeners: on their own thread it would wait for itself
            Thread closer = new Thread(() -> closeNow(timeout, wasStarted), "bull4j-" + ctx.name() + "-close");
            closer.setDaemon(true);
            closer.start();
            return;
        }
        closeNow(timeout, wasStarted);
    }

    private void closeNow(Duration timeout, boolean wasStarted) {
        try {
            // the fetch loop must be gone before jobs are given back, or it would take them again; a loop that
            // never started never signals that it stopped
            if (wasStarted) {
                awaitFetchStopped();
            }
            runner.startClosing();
            if (!awaitIdle(timeout.toMillis())) {
                log.info("worker on {}: interrupting {} running job(s) after {}", ctx.name(), runner.runningCount(),
                        timeout);
                runner.interruptAll();
                if (!awaitIdle(Math.min(INTERRUPT_GRACE_MS, opts.lockDuration().toMillis()))) {
                    letGo(timeout);
                }
            }
        } finally {
            stopScheduler();
            if (ownsExecutor) {
                executor.shutdownNow();
            }
            closeDone.countDown(); // before onClosed: a listener that closes again must not wait for itself
            bus.emit(WorkerListener::onClosed);
            bus.close();
            if (ownsConnection) {
                ctx.link.close();
            }
        }
    }

    /**
     * A second close (a shutdown hook while the application closes, say) returns only once the first has waited
     * for the running jobs, as its caller expects; an interrupt ends the wait.
     */
    private void awaitFirstClose() {
        try {
            closeDone.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops renewing the locks of jobs that ignored the close, so that another worker recovers them. */
    private void letGo(Duration timeout) {
        for (String id : runner.letGoRunning()) {
            log.warn("worker on {}: job {} did not end within the close timeout ({}) nor when interrupted; its lock "
                    + "is no longer renewed and the stalled check will recover it once the lock expires (within "
                    + "lockDuration {})", ctx.name(), id, timeout, opts.lockDuration());
        }
    }

    private void awaitFetchStopped() {
        try {
            fetch.awaitStopped(opts.drainDelay().plus(ctx.link.commandTimeout()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lets a renewal or stalled scan in progress finish, so none runs after close() returns. */
    private void stopScheduler() {
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(ctx.link.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private boolean awaitIdle(long millis) {
        try {
            return slots.awaitIdle(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Processor withNullResult(VoidProcessor processor) {
        ValidationException.check(processor != null, "processor", "must not be null");
        if (processor instanceof Processor) {
            return (Processor) processor;
        }
        return job -> {
            processor.run(job);
            return null;
        };
    }

    /** Lock tokens {@code <workerId>:<n>}, as BullMQ's workers make them. */
    static final class Tokens {
        private final String workerId = UUID.randomUUID().toString();
        private final AtomicLong n = new AtomicLong();

        String next() {
            return workerId + ":" + n.incrementAndGet();
        }

        /** The worker's id, the first part of its tokens (BullMQ's {@code worker.id}). */
        String workerId() {
            return workerId;
        }
    }
}
