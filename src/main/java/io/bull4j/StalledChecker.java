package io.bull4j;

import io.bull4j.internal.script.MoveStalledJobsToWait;
import io.bull4j.internal.script.SweepStalledJobs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Runs the stalled scan on the worker's scheduler thread: requeues active jobs whose lock expired. Between the
 * regular passes (one per {@code stalledInterval} across all workers) the sweep requeues the jobs a pass marked as
 * soon as their lock is gone, and runs the regular pass as soon as it is due.
 */
final class StalledChecker {
    private static final Logger log = LoggerFactory.getLogger(StalledChecker.class);

    private final QueueContext ctx;
    private final int maxStalledCount;
    private final long intervalMs;
    private final ListenerBus bus;
    private boolean sweepFailing; // only the scheduler thread sweeps

    StalledChecker(QueueContext ctx, int maxStalledCount, long intervalMs, ListenerBus bus) {
        this.ctx = ctx;
        this.maxStalledCount = maxStalledCount;
        this.intervalMs = intervalMs;
        this.bus = bus;
    }

    /** One scan; a no-op when another worker scanned within the interval. */
    List<String> check() {
        try {
            List<String> moved = ctx.await(MoveStalledJobsToWait.run(ctx.scripts(), ctx.keys, ctx.now(),
                    maxStalledCount, intervalMs), "moveStalledJobsToWait");
            report(moved);
            return moved;
        } catch (RuntimeException e) {
            log.warn("stalled check failed for queue {}", ctx.name(), e);
            bus.emit(l -> l.onError(e));
            return List.of();
        }
    }

    /** One sweep; runs the regular pass instead when {@code stalled-check} has expired. */
    List<String> sweep() {
        SweepStalledJobs.Result r;
        try {
            r = ctx.await(SweepStalledJobs.run(ctx.scripts(), ctx.keys, ctx.now(), maxStalledCount),
                    "sweepStalledJobs");
        } catch (RuntimeException e) {
            // one WARN per outage, not one a second: the listener still hears every failure
            if (!sweepFailing) {
                log.warn("stalled sweep failed for queue {} (logged again once it has worked)", ctx.name(), e);
            } else {
                log.debug("stalled sweep failed again for queue {}", ctx.name(), e);
            }
            sweepFailing = true;
            bus.emit(l -> l.onError(e));
            return List.of();
        }
        sweepFailing = false;
        if (r.passDue()) {
            return check();
        }
        report(r.moved());
        return r.moved();
    }

    private void report(List<String> moved) {
        for (String id : moved) {
            log.info("job {} of queue {} stalled and was moved back to wait", id, ctx.name());
            bus.emit(l -> l.onStalled(id));
        }
    }
}
