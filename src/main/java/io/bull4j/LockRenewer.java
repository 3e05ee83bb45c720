package io.bull4j;

import io.bull4j.internal.script.Locks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The locks a worker holds (job id to token), renewed together in one Redis call per tick on the worker's
 * scheduler thread. A job is tracked from its fetch until its outcome is written.
 */
final class LockRenewer {
    private static final Logger log = LoggerFactory.getLogger(LockRenewer.class);

    private final QueueContext ctx;
    private final long lockMs;
    private final ListenerBus bus;
    private final Map<String, String> held = new ConcurrentHashMap<>();

    LockRenewer(QueueContext ctx, long lockMs, ListenerBus bus) {
        this.ctx = ctx;
        this.lockMs = lockMs;
        this.bus = bus;
    }

    void track(String jobId, String token) {
        held.put(jobId, token);
    }

    void untrack(String jobId) {
        held.remove(jobId);
    }

    int size() {
        return held.size();
    }

    /** One tick: renews every held lock; a lock found lost is reported and no longer renewed. */
    void renewAll() {
        if (held.isEmpty()) {
            return;
        }
        Map<String, String> snapshot = new HashMap<>(held);
        try {
            List<String> lost = ctx.await(Locks.extendAll(ctx.scripts(), ctx.keys, snapshot, lockMs), "extendLocks");
            for (String id : lost) {
                // only if still held with the same token: the job may have finished meanwhile
                if (held.remove(id, snapshot.get(id))) {
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
