package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveLimitedToWait;
import io.bull4j.internal.script.MoveToDelayed;
import io.bull4j.internal.script.MoveToFinished;
import io.bull4j.internal.script.MoveToWait;
import io.bull4j.internal.script.RetryJob;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs fetched jobs on the processor executor and writes their outcome. Finishing a job also fetches the next
 * one in the same Redis call, which then runs in the same slot: a busy worker makes about one round trip per job.
 * The thread waits for that answer and runs the next job itself; except at concurrency 40 and up, where the
 * finishes go in whole batches ({@link FinishBatcher#wholeBatches}): there the thread goes on to other ready work
 * while its finish is in flight, and the answer comes back as work of its own ({@link ReadyWork}), handled by
 * whichever processor thread is free. A job fetched while the worker is closing is given back to wait unstarted.
 */
final class JobRunner {
    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    private final QueueContext ctx;
    private final WorkerOptions opts;
    private final Processor processor;
    private final Slots slots;
    private final LockRenewer locks;
    private final OutcomeWrites outcomes;
    private final ListenerBus bus;
    private final Worker.Tokens tokens;
    private JobControl control; // set by the worker before it runs
    private final JobSchedulers schedulers;
    /** With concurrency above 1, the finishes ready together go in one call; null: each in its own. */
    private final FinishBatcher batcher;
    /** Fetched jobs, and finishes' answers, waiting for a processor thread. */
    private final ReadyWork work;
    /**
     * Whether a completion's answer is left to whichever thread is free ({@link FinishAnswer}). Only where answers
     * come in whole batches: at concurrency 100 that cut the JVM's CPU per job by half; at 10, where a call carries
     * about 5 finishes, it gained nothing and made flows slower (docs/benchmarks.md, 2026-12-04 night).
     */
    private final boolean answersAsWork;
    /** What runOne returns when the job's finish is in flight and its answer will be handled as work of its own. */
    private static final FetchedJob DETACHED = FetchedJob.of("(answer pending)", Map.of());
    private final Map<String, Thread> running = new ConcurrentHashMap<>();
    /** Jobs whose thread close(timeout) interrupted: their failure is the shutdown's, not theirs. */
    private final Set<String> interruptedByClose = ConcurrentHashMap.newKeySet();
    /** Jobs fetched and handed to the executor but not started yet: id to token. */
    private final Map<String, String> queued = new ConcurrentHashMap<>();
    private final AtomicInteger finished = new AtomicInteger();
    private volatile boolean closing;
    private volatile java.util.function.LongConsumer queueDrained = next -> { };
    private volatile java.util.function.LongConsumer rateLimited = ms -> { };
    private volatile boolean noFetchNext;
    private volatile boolean paused;
    /** The span of each running attempt, by job id; only with {@link WorkerOptions#telemetry()}. */
    private final Map<String, Telemetry.Span> spans = new ConcurrentHashMap<>();

    JobRunner(QueueContext ctx, WorkerOptions opts, Processor processor, ExecutorService executor, Slots slots,
              LockRenewer locks, ListenerBus bus, Worker.Tokens tokens) {
        this.ctx = ctx;
        this.opts = opts;
        this.processor = processor;
        this.slots = slots;
        this.locks = locks;
        this.outcomes = new OutcomeWrites(ctx, locks);
        this.bus = bus;
        this.tokens = tokens;
        this.schedulers = new JobSchedulers(ctx);
        this.batcher = opts.concurrency() > 1 ? new FinishBatcher(ctx, opts.concurrency()) : null;
        this.work = new ReadyWork(executor, ctx.link.timer());
        this.answersAsWork = batcher != null && batcher.wholeBatches();
    }

    /** A job's finish: in its own call, or with the other finishes ready at the same time. */
    private CompletableFuture<FetchedJob> finishCall(MoveToFinished.Request r) {
        return batcher == null ? MoveToFinished.run(ctx.scripts(), ctx.keys, r) : batcher.finish(r);
    }

    /** The cancellations and timeouts of the attempts this runner starts; set before the first dispatch. */
    void control(JobControl control) {
        this.control = control;
        control.onLetGo(this::letGo);
    }

    /** Told when a finish that asked for the next job found none (with the next delayed time, or 0). */
    void onQueueDrained(java.util.function.LongConsumer listener) {
        this.queueDrained = listener;
    }

    /** Told when a finish's next fetch, or a processor's {@link RateLimitException}, met the rate limit (ms left). */
    void onRateLimited(java.util.function.LongConsumer listener) {
        this.rateLimited = listener;
    }

    /**
     * Takes over the caller's slot for the job and its chain of fetched successors. {@code sentNanos}
     * ({@link System#nanoTime()}) is when the fetch was sent: its lock was taken no earlier, so its lease runs from
     * then, not from the answer (which a long pause of this process may have held back past the lock's end).
     */
    void dispatch(FetchedJob fetched, String token, long sentNanos) {
        locks.track(fetched.id(), token, sentNanos);
        queued.put(fetched.id(), token);
        work.submit(new ReadyWork.Item() {
            @Override
            public void run() {
                // a close may have given the job back while it waited for a thread
                if (queued.remove(fetched.id(), token)) {
                    runChain(fetched, token, new AtomicBoolean(true));
                }
            }

            @Override
            public void reject() {
                if (queued.remove(fetched.id(), token)) {
                    giveBackLater(fetched.id(), token);
                    slots.release();
                }
            }
        });
    }

    /**
     * Runs the job and the successors its finishes fetch, in {@code slot} (cleared by whoever frees it: this chain,
     * or a let-go), until a finish fetches none or its answer is left to a thread of its own ({@link #DETACHED}).
     * A null {@code fetched} (a finish that asked for nothing, or failed) only frees the slot.
     */
    private void runChain(FetchedJob fetched, String token, AtomicBoolean slot) {
        boolean detached = false;
        try {
            while (fetched != null && fetched.isPresent()) {
                if (closing) {
                    giveBack(fetched.id(), token);
                    return;
                }
                Job job;
                try {
                    job = new Job(ctx, fetched.id(), fetched.fields(), token);
                } catch (RuntimeException e) {
                    // never strand a job under a lock we keep renewing: untracked, it is recovered as stalled
                    log.warn("cannot read job {} of queue {}; leaving it to the stalled check", fetched.id(),
                            ctx.name(), e);
                    locks.forget(fetched.id(), token);
                    bus.emit(l -> l.onError(e));
                    return;
                }
                if (!fetched.schedulerSettled() && !addNextSchedulerRun(job)) {
                    leaveToStalledCheck(job);
                    return;
                }
                String nextToken = tokens.next();
                fetched = runOne(job, nextToken, slot);
                if (fetched == DETACHED) {
                    detached = true; // the answer's handling owns the slot now
                    return;
                }
                token = nextToken;
                if (fetched != null && fetched.isPresent()) {
                    locks.track(fetched.id(), token); // a completion tracked it already, from its send time
                }
            }
            if (fetched != null && fetched.rateLimitMs() > 0) {
                rateLimited.accept(fetched.rateLimitMs()); // the fetch loop waits for the window, then asks
            } else if (fetched != null) {
                // the finish asked for a next job and found none: the fetch loop can block on the marker at once
                // instead of asking again (before the slot is released, so that the loop sees it)
                queueDrained.accept(fetched.nextDelayedMs());
            }
        } finally {
            if (!detached && slot.compareAndSet(true, false)) {
                slots.release();
            }
        }
    }

    private static final int SCHEDULER_ATTEMPTS = 3;

    /**
     * Stops renewing the job's lock and, when Redis lets us, drops it: the stalled check then gives the job back
     * within a stalled interval instead of after the whole lock duration.
     */
    private void leaveToStalledCheck(Job job) {
        locks.forget(job.id(), job.token());
        ManualJobs.releaseLock(ctx, job.id(), job.token());
    }

    /**
     * For a job scheduler's run: adds the scheduler's next run before this one is processed, as BullMQ's worker
     * does. When Redis keeps failing, returns false: the job is then left unprocessed, so the stalled check gives
     * it back and the next fetch tries again (the schedule is never
     * silently dropped; the lock is dropped too, so that happens within a stalled interval). A legacy repeatable job is processed, with an error reported, as BullMQ does.
     * Runs on the processor thread, never on a Redis I/O thread.
     */
    private boolean addNextSchedulerRun(Job job) {
        if (job.fields().get("rjk") == null) {
            return true;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                schedulers.addNextIteration(job.id(), job.fields());
                return true;
            } catch (RedisException e) {
                if (attempt >= SCHEDULER_ATTEMPTS || closing) {
                    log.error("cannot add the next run of job scheduler {} (queue {}); job {} is left to the "
                            + "stalled check", job.fields().get("rjk"), ctx.name(), job.id(), e);
                    bus.emit(l -> l.onError(e));
                    return false;
                }
                try {
                    Thread.sleep(100L * attempt * attempt); // a short back-off before asking Redis again
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            } catch (RuntimeException e) {
                // a definition this side cannot compute (legacy key, unknown zone, a pattern bull4j refuses):
                // retrying cannot help, so the run is processed and the schedule ends here, reported
                log.error("job {} of queue {}: cannot add the next run of job scheduler {}: {}", job.id(),
                        ctx.name(), job.fields().get("rjk"), e.getMessage());
                bus.emit(l -> l.onError(e));
                return true;
            }
        }
    }

    /**
     * Returns what the finish fetched with {@code nextToken} (a job, or none with the next delayed time), or null
     * when it did not ask for a next job.
     */
    private FetchedJob runOne(Job job, String nextToken, AtomicBoolean slot) {
        bus.awaitRoom(); // listeners far behind hold the jobs back (the lock is renewed meanwhile)
        if (!locks.mayStillHold(job.id(), job.token())) {
            // this process was stopped or starved for longer than the lock between the fetch and now: another
            // worker may run the job already, so it is not started here (the stalled check gives it back if not)
            log.warn("job {} of queue {} not started: its lock may have expired since it was fetched", job.id(),
                    ctx.name());
            locks.forget(job.id(), job.token());
            finished.incrementAndGet();
            bus.emit(l -> l.onError(new JobException(ctx.name(), job.id(), JobException.Reason.LOCK_MISSING,
                    "the lock of job " + job.id() + " may have expired before it started: not run")));
            return null;
        }
        running.put(job.id(), Thread.currentThread());
        JobControl.Run run = control.start(job, Thread.currentThread(), slot);
        if (closing) {
            // close began after the chain looked, and may have interrupted the running jobs before this one was
            // registered: it is given back unstarted, as the chain gives back what it has not started
            control.end(run);
            running.remove(job.id(), Thread.currentThread());
            giveBack(job.id(), job.token());
            return null;
        }
        boolean late = false;
        boolean detached = false;
        Telemetry.Span span = opts.telemetry() == null ? null
                : Traces.startProcess(opts.telemetry(), job, tokens.workerId(), opts.name());
        Telemetry.Scope scope = null;
        if (span != null) {
            spans.put(job.id(), span);
            scope = Traces.makeCurrent(span);
        }
        try {
            if (bus.wants(ListenerBus.PROGRESS)) {
                job.onProgress((j, p) -> bus.emit(l -> l.onProgress(j, p)));
            }
            if (bus.wants(ListenerBus.ACTIVE)) {
                bus.emit(l -> l.onActive(job));
            }
            Object result;
            try {
                if (job.deferredFailure() != null) {
                    throw new UnrecoverableException(job.deferredFailure());
                }
                if (opts.maxStartedAttempts() > 0 && job.attemptsStarted() > opts.maxStartedAttempts()) {
                    throw new UnrecoverableException("job started more than allowable limit"); // as BullMQ
                }
                result = AsyncResults.await(processor.process(job));
            } catch (Exception | Error e) {
                late = !control.end(run); // no cancellation interrupts the thread after this
                Thread.interrupted(); // a close(timeout) interrupt must not break the Redis write that follows
                if (late) {
                    refuseLate(run, null, e);
                    return null;
                }
                stopRenewing(job);
                if (run.cancellation.isCancelled()) {
                    return fail(job, run.failure(e), nextToken);
                }
                if (interruptedByClose.contains(job.id())) {
                    log.info("job {} of queue {} was interrupted by close; giving it back to wait", job.id(),
                            ctx.name());
                    giveBack(job.id(), job.token());
                    return null;
                }
                return fail(job, e, nextToken);
            }
            late = !control.end(run);
            Thread.interrupted();
            if (late) {
                refuseLate(run, result, null);
                return null;
            }
            stopRenewing(job);
            if (run.cancellation.isCancelled()) {
                return fail(job, run.failure(null), nextToken); // cancelled: the attempt fails whatever it returned
            }
            FetchedJob next = complete(job, result, nextToken, span == null ? slot : null);
            detached = next == DETACHED;
            return next;
        } catch (RuntimeException e) {
            log.warn("could not record the outcome of job {} on queue {}", job.id(), ctx.name(), e);
            bus.emit(l -> l.onError(e));
            return null;
        } finally {
            if (span != null) {
                Traces.close(scope);
                spans.remove(job.id(), span);
                Traces.endProcess(span, job, ctx.now());
            }
            running.remove(job.id(), Thread.currentThread());
            // a job let go was accounted for then (it may even run here again by now); one whose finish is in
            // flight is accounted for when its answer is handled (its lease must last while the finish is retried)
            if (!late && !detached) {
                accountFor(job);
            }
        }
    }

    /** The last bookkeeping of an attempt whose processor ended and whose outcome was written or given up. */
    private void accountFor(Job job) {
        interruptedByClose.remove(job.id());
        locks.forget(job.id(), job.token());
        finished.incrementAndGet();
    }

    /**
     * A cancelled attempt whose processor did not end within the grace period: its failure is recorded now (retried
     * per its attempts) and its slot freed, while the processor's thread goes on until it ends.
     */
    void letGo(JobControl.Run run) {
        Job job = run.job;
        running.remove(job.id(), run.thread);
        try {
            stopRenewing(job);
            fail(job, run.failure(null), null);
        } catch (RuntimeException e) {
            log.warn("could not record the failure of cancelled job {} on queue {}", job.id(), ctx.name(), e);
            bus.emit(l -> l.onError(e));
        } finally {
            interruptedByClose.remove(job.id());
            locks.forget(job.id(), job.token());
            finished.incrementAndGet();
            if (run.slot.compareAndSet(true, false)) {
                slots.release();
            }
        }
    }

    /**
     * The outcome of an attempt that was let go: written as any outcome, so that Redis refuses it (the lock is gone
     * or another token's), and only logged. It is recorded only if the failure written when the attempt was let go
     * did not apply and the lock is still this attempt's. The refusal goes to {@link WorkerListener#onError}.
     */
    private void refuseLate(JobControl.Run run, Object result, Throwable error) {
        Job job = run.job;
        // after the let-go's failure, never before it: once that is written the lock is gone and this is refused
        control.awaitLetGo(run, opts.lockDuration().toMillis() + ctx.link.commandTimeout().toMillis());
        try {
            String value = error == null ? Json.write(ctx.mapper, result, "returnvalue") : Attempts.reason(error);
            MoveToFinished.Request r = Attempts.finishRequest(ctx, opts, job, job.token(), error == null, value);
            ctx.await(MoveToFinished.run(ctx.scripts(), ctx.keys, r), error == null ? "moveToCompleted"
                    : "moveToFailed");
            log.warn("job {} of queue {}: the late outcome of an attempt that was let go was recorded (its lock was "
                    + "still held)", job.id(), ctx.name());
        } catch (RuntimeException e) {
            log.info("job {} of queue {}: the late outcome of an attempt that was let go is refused: {}", job.id(),
                    ctx.name(), e.getMessage());
            bus.emit(l -> l.onError(e));
        }
    }

    /**
     * The processor is done: renewal stops before the outcome is written, so that a renewal racing with the
     * finish (which deletes the lock) is not taken for a lost lock. The lock still has over half its time left;
     * a finish that has to be retried renews it again between its tries ({@link OutcomeWrites#write}).
     */
    private void stopRenewing(Job job) {
        locks.untrack(job.id(), job.token());
    }

    /**
     * Writes the completion, and returns the job it fetched; or, where {@link #answersAsWork} and with a
     * {@code slot} to hand on, {@link #DETACHED}: the finish is sent, and its answer is handled as ready work of its
     * own ({@link FinishAnswer}), so that this thread can take other work meanwhile.
     */
    private FetchedJob complete(Job job, Object result, String nextToken, AtomicBoolean slot) {
        String json;
        try {
            json = Json.write(ctx.mapper, result, "returnvalue");
        } catch (ValidationException e) {
            return fail(job, e, nextToken);
        }
        MoveToFinished.Request r = Attempts.finishRequest(ctx, opts, job, job.token(), true, json);
        r.nextToken = fetchNext() ? nextToken : null;
        if (answersAsWork && slot != null) {
            long sent = System.nanoTime();
            CompletableFuture<FetchedJob> first = batcher.finish(r);
            FinishAnswer answer = new FinishAnswer(job, result, json, r, first, sent, nextToken, slot);
            first.whenComplete((next, error) -> work.submit(answer));
            return DETACHED;
        }
        long sent = System.nanoTime();
        FetchedJob next = completed(job, result, json, r, nextToken, () -> finishCall(r), sent);
        if (next != null && next.isPresent()) {
            locks.track(next.id(), nextToken, sent); // its lock was taken no earlier than the finish was sent
        }
        return next;
    }

    /**
     * The answer to a completion sent by {@link #complete} without waiting: handled on a processor thread as the
     * waiting thread would have handled it (a finish that failed unapplied is tried again from here), then the job
     * it fetched runs in the same slot.
     */
    private final class FinishAnswer implements ReadyWork.Item {
        private final Job job;
        private final Object result;
        private final String json;
        private final MoveToFinished.Request request;
        private final CompletableFuture<FetchedJob> first;
        private final long sent;
        private final String nextToken;
        private final AtomicBoolean slot;

        FinishAnswer(Job job, Object result, String json, MoveToFinished.Request request,
                     CompletableFuture<FetchedJob> first, long sent, String nextToken, AtomicBoolean slot) {
            this.job = job;
            this.result = result;
            this.json = json;
            this.request = request;
            this.first = first;
            this.sent = sent;
            this.nextToken = nextToken;
            this.slot = slot;
        }

        @Override
        public void run() {
            FetchedJob next = null;
            AtomicBoolean firstTry = new AtomicBoolean(true);
            try {
                next = completed(job, result, json, request, nextToken,
                        () -> firstTry.getAndSet(false) ? first : finishCall(request), sent);
            } catch (RuntimeException e) {
                log.warn("could not record the outcome of job {} on queue {}", job.id(), ctx.name(), e);
                bus.emit(l -> l.onError(e));
            } finally {
                accountFor(job);
            }
            if (next != null && next.isPresent()) {
                locks.track(next.id(), nextToken, sent); // its lock was taken no earlier than the finish was sent
            }
            runChain(next, nextToken, slot);
        }

        @Override
        public void reject() {
            accountFor(job);
            // a failed finish fetched nothing (and getNow would throw, leaving the slot held)
            FetchedJob next = first.isCompletedExceptionally() ? null : first.getNow(null);
            if (next != null && next.isPresent()) {
                giveBackLater(next.id(), nextToken);
            }
            if (slot.compareAndSet(true, false)) {
                slots.release();
            }
        }
    }

    /**
     * The completion's write (retried as {@link OutcomeWrites#write} does, {@code call} giving each try) and what
     * follows it: the listeners, or a failure when a parent may not complete yet.
     */
    private FetchedJob completed(Job job, Object result, String json, MoveToFinished.Request r, String nextToken,
                                 Supplier<CompletionStage<FetchedJob>> call, long firstSent) {
        FetchedJob next;
        try {
            next = outcomes.write(job, "moveToCompleted", call, sent -> outcomes.finishApplied(job, r, sent),
                    firstSent);
        } catch (JobException e) {
            // a parent of a flow may not complete with children pending (an attempt that failed, as in BullMQ) or
            // after a child failed it (failParentOnFailure: no retry)
            if (e.reason() == JobException.Reason.PENDING_CHILDREN) {
                return fail(job, e, nextToken);
            }
            if (e.reason() == JobException.Reason.FAILED_CHILDREN) {
                return fail(job, new UnrecoverableException(e.getMessage()), nextToken);
            }
            throw e;
        }
        Traces.completed(spans.get(job.id()), json, job.attemptsMade() + 1);
        if (bus.wants(ListenerBus.COMPLETED)) {
            Job done = after(job, "atm", job.attemptsMade() + 1, "returnvalue", json, "finishedOn", r.now);
            bus.emit(l -> l.onCompleted(done, result));
        }
        return r.nextToken != null ? next : null; // null: no next job was asked for
    }

    /**
     * Records a failed attempt: a retry (at once or after the backoff), or the final failure, which takes the next
     * job in the same call as a completion does (as BullMQ's moveToFailed with fetchNext).
     */
    private FetchedJob fail(Job job, Throwable error, String nextToken) {
        if (error instanceof DelayedException || error instanceof WaitingChildrenException) {
            return null; // the processor moved its job to delayed or waiting-children itself
        }
        if (error instanceof RateLimitException) {
            // back to wait, no attempt spent; this worker asks again once the limiter's window ends
            long ttl = outcomes.write(job, "moveJobFromActiveToWait",
                    () -> MoveLimitedToWait.run(ctx.scripts(), ctx.keys, job.id(), job.token()), null);
            rateLimited.accept(ttl);
            return null;
        }
        String reason = Attempts.reason(error);
        String stack = Attempts.stacktrace(job, error);
        int attemptsMade = job.attemptsMade() + 1;
        if (Attempts.mayRetry(job, error, opts.maxStartedAttempts())) {
            Duration delay = Attempts.retryDelay(ctx, opts, job, attemptsMade, error);
            if (delay != null) {
                if (delay.isZero()) {
                    long now = ctx.now();
                    outcomes.write(job, "retryJob", () -> RetryJob.run(ctx.scripts(), ctx.keys, job.id(),
                            job.token(), reason, stack, now), null);
                } else {
                    long due = ctx.now() + delay.toMillis();
                    outcomes.write(job, "moveToDelayed", () -> MoveToDelayed.run(ctx.scripts(), ctx.keys, job.id(),
                            job.token(), due, delay.toMillis(), reason, stack), null);
                }
                Job retried = after(job, "atm", attemptsMade, "failedReason", reason, "stacktrace", stack,
                        "delay", delay.toMillis());
                Traces.failed(spans.get(job.id()), reason, error, attemptsMade);
                bus.emit(l -> l.onRetrying(retried, error, delay));
                bus.emit(l -> l.onFailed(retried, error));
                return null;
            }
        }
        MoveToFinished.Request r = Attempts.finishRequest(ctx, opts, job, job.token(), false, reason);
        r.stacktrace = stack;
        r.nextToken = fetchNext() ? nextToken : null;
        FetchedJob next = outcomes.write(job, "moveToFailed", () -> finishCall(r),
                sent -> outcomes.finishApplied(job, r, sent));
        Job failed = after(job, "atm", attemptsMade, "failedReason", reason, "stacktrace", stack,
                "finishedOn", r.now);
        Traces.failed(spans.get(job.id()), reason, error, attemptsMade);
        bus.emit(l -> l.onFailed(failed, error));
        return r.nextToken != null ? next : null; // null: no next job was asked for
    }

    /** The job as a transition just left it, for listeners: the fetched snapshot plus the fields it wrote. */
    private Job after(Job job, Object... fieldsAndValues) {
        if (!bus.hasListeners()) {
            return job; // only listeners see this copy: skip it on the hot path
        }
        Map<String, String> fields = new LinkedHashMap<>(job.fields());
        for (int i = 0; i + 1 < fieldsAndValues.length; i += 2) {
            fields.put((String) fieldsAndValues[i], String.valueOf(fieldsAndValues[i + 1]));
        }
        fields.remove("defa"); // cleared by any outcome
        return new Job(ctx, job.id(), fields, job.token(), job.opts());
    }

    private boolean fetchNext() {
        return !closing && !paused && !noFetchNext;
    }

    /** giveBack without waiting for Redis, for where no thread may wait (the stalled check recovers a failure). */
    private void giveBackLater(String jobId, String token) {
        try {
            MoveToWait.run(ctx.scripts(), ctx.keys, jobId, token).whenComplete((v, e) -> {
                if (e != null) {
                    log.warn("could not give job {} back to wait; it will be recovered as stalled", jobId, e);
                }
            });
        } catch (RuntimeException e) {
            log.warn("could not give job {} back to wait; it will be recovered as stalled", jobId, e);
        } finally {
            locks.forget(jobId, token);
        }
    }

    private void giveBack(String jobId, String token) {
        try {
            ctx.await(MoveToWait.run(ctx.scripts(), ctx.keys, jobId, token), "moveToWait");
        } catch (RuntimeException e) {
            log.warn("could not give job {} back to wait; it will be recovered as stalled", jobId, e);
        } finally {
            locks.forget(jobId, token);
        }
    }

    /**
     * A fetch's answer was lost ({@code RedisOutcomeUnknownException}): the jobs it may have taken, found by its
     * tokens, go back to the front of wait at once, instead of staying locked by nobody until the stalled check
     * recovers them (a lock duration later) and counts a stall against them. A failed look leaves them to it.
     */
    void recoverLostFetch(java.util.List<String> lostTokens) {
        Map<String, String> taken;
        try {
            taken = outcomes.activeLockedWithAny(new java.util.HashSet<>(lostTokens));
        } catch (RuntimeException e) {
            log.debug("could not look for the jobs of a fetch whose answer was lost; the stalled check will", e);
            return;
        }
        taken.forEach((id, token) -> {
            log.info("job {} of queue {} was taken by a fetch whose answer was lost; giving it back to wait", id,
                    ctx.name());
            giveBack(id, token);
        });
    }

    void setPaused(boolean paused) {
        this.paused = paused;
    }

    /** A closing worker's finishing jobs stop taking successors, before the fetch loop is even stopped. */
    void stopFetchingNext() {
        noFetchNext = true;
    }

    /** Stops chaining fetches, and gives back at once the jobs still waiting for an executor thread. */
    void startClosing() {
        closing = true;
        for (Map.Entry<String, String> e : queued.entrySet()) {
            if (queued.remove(e.getKey(), e.getValue())) {
                giveBack(e.getKey(), e.getValue());
                slots.release();
            }
        }
    }

    int finishedCount() {
        return finished.get();
    }

    int runningCount() {
        return running.size();
    }

    /** Whether the calling thread is running one of this worker's jobs (its processor, or that job's finish). */
    boolean isJobThread() {
        return running.containsValue(Thread.currentThread());
    }

    /** Stops renewing the locks of the jobs still running (close gave up on them); returns their ids, sorted. */
    java.util.SortedSet<String> letGoRunning() {
        java.util.SortedSet<String> ids = new java.util.TreeSet<>(running.keySet());
        ids.forEach(locks::forget); // a finish still being retried stops too: the job is given up
        return ids;
    }

    void interruptAll() {
        control.interruptRunning(interruptedByClose::add);
    }
}
