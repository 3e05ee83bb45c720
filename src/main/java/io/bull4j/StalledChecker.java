package io.bull4j;

import io.bull4j.internal.script.MoveStalledJobsToWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/** Runs the stalled scan on the worker's scheduler thread: requeues active jobs whose lock expired. */
final class StalledChecker {
    private static final Logger log = LoggerFactory.getLogger(StalledChecker.class);

    private final QueueContext ctx;
    private final int maxStalledCount;
    private final long intervalMs;
    private final ListenerBus bus;

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
            for (String id : moved) {
                log.info("job {} of queue {} stalled and was moved back to wait", id, ctx.name());
                bus.emit(l -> l.onStalled(id));
            }
            return moved;
        } catch (RuntimeException e) {
            log.warn("stalled check failed for queue {}", ctx.name(), e);
            bus.emit(l -> l.onError(e));
            return List.of();
        }
    }
}
