package io.bull4j;

import io.bull4j.internal.script.Locks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The locks a worker holds (job id to token), renewed together in one Redis call per tick on the worker's
 * scheduler thread. A job is tracked from its fetch until its outcome is written. Apart from what is renewed, it
 * keeps each job's lease: until when its lock can still be ours (the lock duration from the fetch, or from the
 * send of the last renewal that found it), which bounds how long a finish that failed may be retried.
 */
final class LockRenewer {
    private static final Logger log = LoggerFactory.getLogger(LockRenewer.class);

    private final QueueContext ctx;
    private final long lockMs;
    private final ListenerBus bus;
    private final Map<String, String> held = new ConcurrentHashMap<>();
    /** Job id to its lease, from the fetch until {@link #forget}: kept while renewal pauses around a finish. */
    private final Map<String, Lease> leases = new ConcurrentHashMap<>();
    /**
     * Job id to token of the locks renewed between the tries of a finish ({@link #retrack}). Such a lock found gone
     * is not reported: an earlier try whose answer was lost may have deleted it, and the finish tells which.
     */
    private final Map<String, String> retrying = new ConcurrentHashMap<>();

    /** The lock with {@code token} cannot outlive {@code validUntilNanos} (System.nanoTime) unless renewed. */
    private record Lease(String token, long validUntilNanos) {
    }

    LockRenewer(QueueContext ctx, long lockMs, ListenerBus bus) {
        this.ctx = ctx;
        this.lockMs = lockMs;
        this.bus = bus;
    }

    /** Renews the job's lock from now on; a new token starts a new lease, a known one keeps its own. */
    void track(String jobId, String token) {
        leases.compute(jobId, (id, old) -> old != null && old.token().equals(token) ? old
                : new Lease(token, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lockMs)));
        held.put(jobId, token);
    }

    /**
     * As {@link #track(String, String)}, for a lock taken no earlier than {@code takenNanos} (System.nanoTime):
     * its lease runs from then, not from now.
     */
    void track(String jobId, String token, long takenNanos) {
        leases.compute(jobId, (id, old) -> old != null && old.token().equals(token) ? old
                : new Lease(token, takenNanos + TimeUnit.MILLISECONDS.toNanos(lockMs)));
        held.put(jobId, token);
    }

    /**
     * Stops renewing the job's lock with {@code token}, keeping its lease (a finish may still be retried under it).
     * A lock of another token is left alone: the job may already be fetched again under it.
     */
    void untrack(String jobId, String token) {
        held.remove(jobId, token);
        retrying.remove(jobId, token);
    }

    /**
     * Renews the job's lock with {@code token} again (between the tries of a finish), but only while its lease is
     * still that token's: neither the lease nor the renewal of a newer fetch of the job is replaced.
     */
    void retrack(String jobId, String token) {
        Lease lease = leases.get(jobId);
        if (lease != null && lease.token().equals(token) && held.putIfAbsent(jobId, token) == null) {
            retrying.put(jobId, token);
        }
    }

    /** Stops renewing and drops the lease, whatever the token: the worker gives the job up (close). */
    void forget(String jobId) {
        held.remove(jobId);
        retrying.remove(jobId);
        leases.remove(jobId);
    }

    /**
     * Stops renewing and drops the lease of the job's lock with {@code token}: the worker is done with that attempt.
     * A lease of another token is kept: the job may already be fetched again (a retry back in wait, taken by another
     * finish of this worker) before the thread of the attempt before gets here.
     */
    void forget(String jobId, String token) {
        held.remove(jobId, token);
        retrying.remove(jobId, token);
        leases.computeIfPresent(jobId, (id, old) -> old.token().equals(token) ? null : old);
    }

    /** Whether the job's lock with {@code token} can still be this worker's: the lease is known and not over. */
    boolean mayStillHold(String jobId, String token) {
        Lease lease = leases.get(jobId);
        return lease != null && lease.token().equals(token) && System.nanoTime() - lease.validUntilNanos() < 0;
    }

    int size() {
        return held.size();
    }

    /**
     * One tick: renews every held lock; a lock found lost is no longer renewed, and reported unless a finish is
     * being tried again under it (that finish then ends its lease's wait and reports, or recognises its own try).
     */
    void renewAll() {
        if (held.isEmpty()) {
            return;
        }
        Map<String, String> snapshot = new HashMap<>(held);
        long sent = System.nanoTime();
        try {
            List<String> lost = ctx.await(Locks.extendAll(ctx.scripts(), ctx.keys, snapshot, lockMs), "extendLocks");
            long validUntil = sent + TimeUnit.MILLISECONDS.toNanos(lockMs);
            Set<String> lostIds = new HashSet<>(lost);
            snapshot.forEach((id, token) -> {
                if (!lostIds.contains(id)) {
                    leases.computeIfPresent(id, (k, old) -> old.token().equals(token)
                            ? new Lease(token, validUntil) : old);
                }
            });
            for (String id : lost) {
                // only if still held with the same token: the job may have finished meanwhile
                String token = snapshot.get(id);
                leases.computeIfPresent(id, (k, old) -> old.token().equals(token) ? null : old);
                if (held.remove(id, token) && !retrying.remove(id, token)) {
                    bus.emit(l -> l.onError(new JobException(ctx.name(), id, JobException.Reason.LOCK_MISSING,
                            "lock renewal failed for job " + id + ": another worker may run it")));
                }
            }
        } catch (RuntimeException e) {
            log.warn("lock renewal failed for queue {}", ctx.name(), e);
            bus.emit(l -> l.onError(e));
        }
    }
}
