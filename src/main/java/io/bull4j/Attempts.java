package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.script.MoveToFinished;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a failed attempt leads to, shared by the worker's own loop ({@link JobRunner}) and manual processing
 * ({@link ManualJobs}): the wait before a retry (the job's backoff, capped to what a delayed score holds), the stack
 * traces to store, and the arguments of a finish.
 */
final class Attempts {
    private static final Logger log = LoggerFactory.getLogger(Attempts.class);

    private Attempts() {
    }

    /**
     * The failed reason stored for {@code error}: its message, else its class name (also when getMessage itself
     * throws: the failure must still be written, or the job would stall and run again).
     */
    static String reason(Throwable error) {
        String message;
        try {
            message = error.getMessage();
        } catch (RuntimeException | LinkageError e) {
            message = null;
        }
        return message != null ? message : error.getClass().getName();
    }

    /**
     * Whether the attempt that failed with {@code error} is retried, as BullMQ decides before the backoff: not when
     * it is unrecoverable, its attempts are used, or it was started {@code maxStartedAttempts} times (0: no limit).
     */
    static boolean mayRetry(Job job, Throwable error, int maxStartedAttempts) {
        return !(error instanceof UnrecoverableException) && job.attemptsMade() + 1 < job.opts().attempts()
                && !(maxStartedAttempts > 0 && job.attemptsStarted() >= maxStartedAttempts);
    }

    /**
     * The wait before the retry of attempt {@code attemptsMade}, or null to fail now (a custom backoff without a
     * strategy, or a strategy that refused). A retry is due no later than a delayed score can hold: longer waits
     * are cut to it rather than overflowing the score.
     */
    static Duration retryDelay(QueueContext ctx, WorkerOptions opts, Job job, int attemptsMade, Throwable error) {
        Duration delay = backoff(opts, job, attemptsMade, error);
        if (delay == null) {
            return null;
        }
        Duration latest = Duration.ofMillis(Math.max(0, JobOptions.MAX_DUE_MS - ctx.now()));
        return delay.compareTo(latest) > 0 ? latest : delay;
    }

    private static Duration backoff(WorkerOptions opts, Job job, int attemptsMade, Throwable error) {
        Backoff b = job.opts().backoff();
        if (b == null) {
            return Duration.ZERO;
        }
        if (b.isBuiltIn()) {
            return b.delayFor(attemptsMade, ThreadLocalRandom.current().nextDouble());
        }
        BackoffStrategy strategy = opts.backoffStrategy();
        if (strategy == null) {
            log.warn("job {} has backoff type '{}' but the worker has no backoffStrategy; failing it", job.id(),
                    b.type());
            return null;
        }
        try {
            Duration d = strategy.delay(attemptsMade, b.type(), error, job);
            return d == null || d.isNegative() ? null : d;
        } catch (RuntimeException e) {
            log.warn("backoffStrategy threw for job {}; failing it", job.id(), e);
            return null;
        }
    }

    /** The job's stack traces with this failure appended, limited by its stackTraceLimit, as JSON. */
    static String stacktrace(Job job, Throwable error) {
        List<String> stack = job.stacktrace();
        stack.add(printed(error));
        Integer limit = job.opts().stackTraceLimit();
        if (limit != null) {
            stack = stack.subList(Math.max(0, stack.size() - limit), stack.size());
        }
        return Json.write(Json.DEFAULT, stack, "stacktrace"); // protocol field: never the user's mapper
    }

    /**
     * The stack trace as Java prints it; when printing throws (a toString or getMessage of the exception that
     * throws), its class and frames without the message, so that the failure is still written.
     */
    static String printed(Throwable error) {
        try {
            StringWriter w = new StringWriter();
            error.printStackTrace(new PrintWriter(w));
            return w.toString();
        } catch (RuntimeException | LinkageError e) {
            StringBuilder b = new StringBuilder(error.getClass().getName());
            for (StackTraceElement f : error.getStackTrace()) {
                b.append(System.lineSeparator()).append("\tat ").append(f);
            }
            return b.append(System.lineSeparator()).toString();
        }
    }

    /** The arguments of a finish of {@code job} under {@code token}, with the worker's options. */
    static MoveToFinished.Request finishRequest(QueueContext ctx, WorkerOptions opts, Job job, String token,
                                                boolean completed, String value) {
        KeepJobs keep = completed ? keep(job.opts().removeOnComplete(), opts.removeOnComplete())
                : keep(job.opts().removeOnFail(), opts.removeOnFail());
        MoveToFinished.Request r = new MoveToFinished.Request();
        r.jobId = job.id();
        r.token = token;
        r.now = ctx.now();
        r.completed = completed;
        r.value = value;
        r.keepCount = keep.count();
        r.keepAgeMs = keep.age() == null ? -1 : keep.age().toMillis();
        r.attempts = job.opts().attempts();
        r.lockMs = opts.lockDuration().toMillis();
        r.workerName = opts.name();
        r.limiterMax = opts.limiterMax();
        r.limiterDurationMs = opts.limiterDuration() == null ? 0 : opts.limiterDuration().toMillis();
        r.metricsMaxDataPoints = opts.metricsMaxDataPoints();
        if (!completed && opts.deadLetterQueue() != null) {
            r.deadLetterBase = new QueueKeys(ctx.keys.prefix(), opts.deadLetterQueue()).base();
        }
        return r;
    }

    private static KeepJobs keep(KeepJobs own, KeepJobs workerDefault) {
        return own != null ? own : workerDefault != null ? workerDefault : KeepJobs.all();
    }
}
