package io.bull4j;

import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveToFinished;
import io.lettuce.core.KeyValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How a worker writes a job's outcome so that no job runs twice because an answer was lost: each write is retried
 * while the job's lock can still be this worker's, and a retry refused for the lock is told apart from an earlier
 * try that was applied (see {@link #write}). Used by {@link JobRunner} for every transition out of {@code active}.
 */
final class OutcomeWrites {
    private static final Logger log = LoggerFactory.getLogger(OutcomeWrites.class);

    private final QueueContext ctx;
    private final LockRenewer locks;

    OutcomeWrites(QueueContext ctx, LockRenewer locks) {
        this.ctx = ctx;
        this.locks = locks;
    }

    /** The longest pause between two tries of a finish (the connection's reconnect backoff is capped at 1 s). */
    private static final long RETRY_PAUSE_MAX_MS = 500;

    /**
     * Writes a job's outcome: a lock-fenced transition out of {@code active} of a job this worker holds. One that
     * failed as not applied (the connection was killed or Redis was briefly unreachable) is tried again after a
     * short pause while the job's lock can still be ours (its lease, see {@link LockRenewer}) and the worker has
     * not given the job up; meanwhile the lock is renewed again. Without this the job would stay active, be
     * recovered as stalled and run a second time. A retry cannot apply twice or over another worker: the script
     * checks the token, and a finish applied deletes the lock.
     *
     * <p>A try whose outcome is unknown (the connection broke after the send, or no answer in time) is retried
     * the same way: if it was not applied, the retry records the outcome; if it was, the retry finds the lock gone
     * and is refused. Then {@code recognise} (null for none) reads Redis to tell whether an earlier try of this
     * worker was applied, and returns what that try would have returned; when it cannot tell, the refusal is
     * reported as a {@link RedisOutcomeUnknownException} (the earlier try probably applied; or the lock expired and
     * the stalled check took the job), never as the job's outcome.
     */
    <T> T write(Job job, String what, Supplier<CompletionStage<T>> call, Recognition<T> recognise) {
        return write(job, what, call, recognise, System.nanoTime());
    }

    /** {@link #write}, whose first try was sent at {@code firstSent} ({@link System#nanoTime()}), maybe earlier. */
    <T> T write(Job job, String what, Supplier<CompletionStage<T>> call, Recognition<T> recognise, long firstSent) {
        RedisException unknown = null;
        for (int attempt = 1; ; attempt++) {
            try {
                return ctx.await(call.get(), what);
            } catch (RedisNotAppliedException | RedisOutcomeUnknownException e) {
                if (e instanceof RedisOutcomeUnknownException) {
                    unknown = e;
                }
                if (!locks.mayStillHold(job.id(), job.token())) {
                    return recognisedOr(e, unknown, job, what, recognise, firstSent);
                }
                if (attempt == 1) { // once per finish: a long outage would otherwise log every pause
                    log.info("{} of job {} (queue {}) failed ({}); trying again while its lock can still be held",
                            what, job.id(), ctx.name(), e.getMessage());
                }
                locks.retrack(job.id(), job.token()); // renewed between tries: the lock must not expire meanwhile
                try {
                    pause(Math.min(RETRY_PAUSE_MAX_MS, 50L * attempt));
                } finally {
                    // not while a try may delete it (a renewal would call it lost)
                    locks.untrack(job.id(), job.token());
                }
                if (!locks.mayStillHold(job.id(), job.token())) {
                    // given up by close, or lost while we waited: a renewal finds the lock gone when an earlier
                    // try whose answer was lost had been applied (it deleted the lock), so look for that first
                    return recognisedOr(e, unknown, job, what, recognise, firstSent);
                }
            } catch (JobException e) {
                if (unknown != null && refusedForLock(e)) {
                    Optional<T> applied = appliedEarlier(job, what, recognise, firstSent);
                    if (applied.isPresent()) {
                        log.info("{} of job {} (queue {}): an earlier try whose answer was lost ({}) had been "
                                + "applied; its retry was refused ({})", what, job.id(), ctx.name(),
                                unknown.getMessage(), e.getMessage());
                        return applied.get();
                    }
                    throw new RedisOutcomeUnknownException(what + " of job " + job.id() + ": an earlier try's "
                            + "outcome is unknown (" + unknown.getMessage() + ") and a retry found the job no "
                            + "longer held by this worker (" + e.getMessage() + "): the earlier try was applied, "
                            + "or the lock expired and the stalled check took the job", e, false);
                }
                throw e;
            }
        }
    }

    /**
     * The lease ended between tries: what an earlier try returned if Redis shows it was applied (only possible
     * when a try's outcome is unknown), else {@code e} is thrown.
     */
    private <T> T recognisedOr(RedisException e, RedisException unknown, Job job, String what,
                               Recognition<T> recognise, long firstSent) {
        Optional<T> applied = unknown == null ? Optional.empty() : appliedEarlier(job, what, recognise, firstSent);
        if (applied.isPresent()) {
            log.info("{} of job {} (queue {}): an earlier try whose answer was lost ({}) had been applied", what,
                    job.id(), ctx.name(), unknown.getMessage());
            return applied.get();
        }
        throw e;
    }

    private <T> Optional<T> appliedEarlier(Job job, String what, Recognition<T> recognise, long firstSent) {
        if (recognise == null) {
            return Optional.empty();
        }
        try {
            return recognise.appliedEarlier(firstSent);
        } catch (RuntimeException readFailed) {
            log.debug("could not read job {} to tell whether {} was applied", job.id(), what, readFailed);
            return Optional.empty();
        }
    }

    /** Tells whether an earlier try of a finish, sent from {@code firstSentNanos} on, was applied. */
    interface Recognition<T> {
        /** What the applied try returned, or empty when Redis does not show that it was applied. */
        Optional<T> appliedEarlier(long firstSentNanos);
    }

    /**
     * Whether this worker's {@code moveToFinished} {@code r} was applied. Two signs, either enough: a job locked
     * with {@code r.nextToken}, a token that only this request used, so only its applied fetch can have taken that
     * lock (that job is then returned, for this worker to run rather than leave it locked by nobody until the
     * stalled check counts it as stalled); or the job in the target set with {@code r.now} as its score and
     * {@code finishedOn} and this attempt's count (a finish by another worker, after a stalled check, carries that
     * worker's time). Empty when neither shows, e.g. the job's hash was removed (removeOnComplete/removeOnFail)
     * and no next job was fetched: the worker cannot tell.
     */
    Optional<FetchedJob> finishApplied(Job job, MoveToFinished.Request r, long firstSentNanos) {
        if (r.nextToken != null) {
            FetchedJob next = lockedWith(r.nextToken, firstSentNanos);
            if (next != null) {
                return Optional.of(next);
            }
        }
        String set = r.completed ? ctx.keys.completed() : ctx.keys.failed();
        Double score = ctx.await(ctx.redis().zscore(set, job.id()), "zscore");
        List<KeyValue<String, String>> f = ctx.await(ctx.redis().hmget(ctx.keys.job(job.id()), "finishedOn",
                "atm"), "hmget");
        boolean ours = score != null && score.longValue() == r.now && f.size() == 2
                && Long.toString(r.now).equals(f.get(0).getValueOrElse(null))
                && Integer.toString(job.attemptsMade() + 1).equals(f.get(1).getValueOrElse(null));
        // applied and fetched nothing (or what it fetched is no longer under its lock): no next job
        return ours ? Optional.of(FetchedJob.NONE) : Optional.empty();
    }

    /**
     * The active job whose lock holds {@code token}, read from Redis and tracked with a lease from
     * {@code takenNanos} (its lock was taken no earlier); null when none does.
     */
    private FetchedJob lockedWith(String token, long takenNanos) {
        for (String id : activeLockedWithAny(java.util.Set.of(token)).keySet()) {
            Map<String, String> fields = ctx.await(ctx.redis().hgetall(ctx.keys.job(id)), "hgetall");
            locks.track(id, token, takenNanos);
            return FetchedJob.of(id, fields);
        }
        return null;
    }

    /**
     * The active jobs whose locks hold one of {@code tokens} (job id to token): what a fetch whose answer was lost
     * took, since only that fetch used its tokens. Not tracked.
     */
    Map<String, String> activeLockedWithAny(java.util.Set<String> tokens) {
        Map<String, String> found = new java.util.LinkedHashMap<>();
        List<String> active = ctx.await(ctx.redis().lrange(ctx.keys.active(), 0, -1), "lrange");
        for (int from = 0; from < active.size() && found.size() < tokens.size(); from += 500) {
            List<String> ids = active.subList(from, Math.min(active.size(), from + 500));
            // GETs sent together (no MGET: the documented ACL does not grant it, and on a cluster it is split)
            List<CompletableFuture<String>> locksHeld = ids.stream()
                    .map(id -> ctx.redis().get(ctx.keys.lock(id)).toCompletableFuture()).toList();
            for (int i = 0; i < ids.size(); i++) {
                String token = ctx.await(locksHeld.get(i), "get");
                if (token != null && tokens.contains(token)) {
                    found.put(ids.get(i), token);
                }
            }
        }
        return found;
    }

    private static boolean refusedForLock(JobException e) {
        return e.reason() == JobException.Reason.LOCK_MISSING || e.reason() == JobException.Reason.LOCK_MISMATCH
                || e.reason() == JobException.Reason.NOT_IN_STATE || e.reason() == JobException.Reason.JOB_NOT_FOUND;
    }

    /** Waits before a retry; a close(timeout) interrupt is for the processor, not for this write. */
    private static void pause(long ms) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        for (long left = ms; left > 0; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
            try {
                Thread.sleep(left);
            } catch (InterruptedException ie) {
                Thread.interrupted(); // cleared: giving the job up is told by its lease, not by an interrupt
            }
        }
    }
}
