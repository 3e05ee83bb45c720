package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.Locks;
import io.bull4j.internal.script.MoveLimitedToWait;
import io.bull4j.internal.script.MoveToActive;
import io.bull4j.internal.script.MoveToDelayed;
import io.bull4j.internal.script.MoveToFinished;
import io.bull4j.internal.script.RetryJob;
import io.bull4j.internal.script.ScriptErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;

/**
 * Manual processing, BullMQ's {@code job.moveToCompleted/moveToFailed/moveToDelayed/moveToWait/extendLock} with the
 * caller's token: the same lock-fenced scripts the worker loop uses, with no lock renewal, no retries of a write
 * and no listeners (the caller owns all of that). A refusal (lock expired or held under another token, job no
 * longer active) is a {@link JobException} and changes nothing.
 */
final class ManualJobs {
    private static final Logger log = LoggerFactory.getLogger(ManualJobs.class);

    private ManualJobs() {
    }

    static Job complete(QueueContext ctx, WorkerOptions opts, Job job, Object returnValue, String token,
                        boolean fetchNext) {
        checkToken(token);
        String json = Json.write(ctx.mapper, returnValue, "returnValue");
        MoveToFinished.Request r = Attempts.finishRequest(ctx, opts, job, token, true, json);
        r.nextToken = fetchNext ? token : null;
        FetchedJob next = ctx.await(MoveToFinished.run(ctx.scripts(), ctx.keys, r), "moveToCompleted");
        return fetchNext ? taken(ctx, opts, next, token) : null;
    }

    /** A failed attempt as BullMQ's moveToFailed records it: retried (at once or after the backoff) or failed. */
    static Job fail(QueueContext ctx, WorkerOptions opts, Job job, Throwable error, String token, boolean fetchNext) {
        checkToken(token);
        ValidationException.check(error != null, "error", "must not be null");
        String reason = Attempts.reason(error);
        String stack = Attempts.stacktrace(job, error);
        int attemptsMade = job.attemptsMade() + 1;
        if (Attempts.mayRetry(job, error, opts.maxStartedAttempts())) {
            Duration delay = Attempts.retryDelay(ctx, opts, job, attemptsMade, error);
            if (delay != null && delay.isZero()) {
                ctx.await(RetryJob.run(ctx.scripts(), ctx.keys, job.id(), token, reason, stack, ctx.now()),
                        "retryJob");
                return null;
            }
            if (delay != null) {
                long due = ctx.now() + delay.toMillis();
                ctx.await(MoveToDelayed.run(ctx.scripts(), ctx.keys, job.id(), token, due, delay.toMillis(), reason,
                        stack), "moveToDelayed");
                // BullMQ's moveToFailed takes the next job on a retry after a backoff too (its moveToDelayed
                // fetches); an immediate retry (retryJob) takes none
                return fetchNext ? takeNext(ctx, opts, token) : null;
            }
        }
        MoveToFinished.Request r = Attempts.finishRequest(ctx, opts, job, token, false, reason);
        r.stacktrace = stack;
        r.nextToken = fetchNext ? token : null;
        FetchedJob next = ctx.await(MoveToFinished.run(ctx.scripts(), ctx.keys, r), "moveToFailed");
        return fetchNext ? taken(ctx, opts, next, token) : null;
    }

    /** The next ready job, taken and locked under {@code token} as a finish's fetch does; null when none. */
    private static Job takeNext(QueueContext ctx, WorkerOptions opts, String token) {
        FetchedJob next = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), token,
                opts.lockDuration().toMillis(), opts.name(), opts.limiterMax(),
                opts.limiterDuration() == null ? 0 : opts.limiterDuration().toMillis()), "moveToActive");
        return taken(ctx, opts, next, token);
    }

    /** Delayed until {@code when} without spending an attempt (BullMQ's skipAttempt). */
    static void delay(QueueContext ctx, Job job, Instant when, String token) {
        checkToken(token);
        ValidationException.check(when != null, "when", "must not be null");
        ValidationException.check(!when.isAfter(Instant.ofEpochMilli(JobOptions.MAX_DUE_MS)), "when",
                "must be at most " + Instant.ofEpochMilli(JobOptions.MAX_DUE_MS) + " (was " + when + ")");
        long due = when.toEpochMilli();
        long delay = Math.max(0, due - ctx.now());
        ctx.await(MoveToDelayed.run(ctx.scripts(), ctx.keys, job.id(), token, Math.max(due, 0), delay, null, null),
                "moveToDelayed");
    }

    /** Back to wait, no attempt spent (BullMQ's moveJobFromActiveToWait); returns the rate limit's time left. */
    static Duration toWait(QueueContext ctx, Job job, String token) {
        checkToken(token);
        long ttl = ctx.await(MoveLimitedToWait.run(ctx.scripts(), ctx.keys, job.id(), token), "moveToWait");
        return Duration.ofMillis(Math.max(0, ttl));
    }

    static void extendLock(QueueContext ctx, String jobId, String token, Duration duration) {
        ValidationException.checkAtLeastOneMs(duration, "duration");
        ValidationException.checkExpiry(duration, "duration");
        checkToken(token);
        if (!ctx.await(Locks.extend(ctx.scripts(), ctx.keys, jobId, token, duration.toMillis()), "extendLock")) {
            // only to tell the two refusals apart; ownership was decided atomically above
            String holder = ctx.await(ctx.redis().get(ctx.keys.lock(jobId)), "GET lock");
            throw ScriptErrors.error(holder == null ? -2 : -6, ctx.name(), jobId, "extendLock");
        }
    }

    /**
     * A job a fetch took under {@code token}, or null. For a job scheduler's run, the next run is added first, as
     * BullMQ does when it hands over a fetched job. When Redis fails there, the run is not handed over: its lock is
     * released and the Redis failure thrown, so that the stalled check gives the run back and a later fetch adds
     * the next run (handed over, the run would be finished and the schedule end with it). A definition this side
     * cannot compute is logged, and the job still returned.
     */
    static Job taken(QueueContext ctx, WorkerOptions opts, FetchedJob fetched, String token) {
        if (fetched == null || !fetched.isPresent()) {
            return null;
        }
        Job job = new Job(ctx, fetched.id(), fetched.fields(), token).processedWith(opts);
        if (job.repeatJobKey() != null && !fetched.schedulerSettled()) {
            try {
                new JobSchedulers(ctx).addNextIteration(job.id(), fetched.fields());
            } catch (RedisException e) {
                log.error("job {} of queue {}: cannot add the next run of job scheduler {}; the run is left to the "
                        + "stalled check", job.id(), ctx.name(), job.repeatJobKey(), e);
                releaseLock(ctx, job.id(), token);
                throw e;
            } catch (RuntimeException e) {
                log.error("job {} of queue {}: cannot add the next run of job scheduler {}", job.id(), ctx.name(),
                        job.repeatJobKey(), e);
            }
        }
        return job;
    }

    /** Releases a lock left to the stalled check; one that cannot be released expires on its own. */
    static void releaseLock(QueueContext ctx, String jobId, String token) {
        try {
            ctx.await(io.bull4j.internal.script.Locks.release(ctx.scripts(), ctx.keys, jobId, token), "releaseLock");
        } catch (RuntimeException e) {
            log.debug("could not release the lock of job {}; it expires on its own", jobId, e);
        }
    }

    private static void checkToken(String token) {
        ValidationException.check(token != null && !token.isEmpty(), "token", "must not be null or empty");
    }
}
