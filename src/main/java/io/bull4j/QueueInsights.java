package io.bull4j;

import io.bull4j.internal.script.GetMetrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The observability half of {@link Queue}: finished-job metrics, the Prometheus text, the workers connected, job
 * logs, the events stream's trim and the meta hash, on BullMQ 6.7.0's keys. Stateless.
 */
final class QueueInsights {
    private final QueueContext ctx;

    QueueInsights(QueueContext ctx) {
        this.ctx = ctx;
    }

    static String metricsType(JobState type) {
        ValidationException.check(type == JobState.COMPLETED || type == JobState.FAILED, "type",
                "must be COMPLETED or FAILED (was " + type + ")");
        return type.wireName();
    }

    JobMetrics metrics(JobState type, long start, long end) {
        String t = metricsType(type);
        GetMetrics.Raw raw = ctx.await(GetMetrics.run(ctx.scripts(), ctx.keys, t, start, end), "getMetrics");
        List<Long> data = new ArrayList<>(raw.page().size());
        raw.page().forEach(p -> data.add(number(p)));
        long prevTs = number(raw.prevTs());
        return new JobMetrics(number(raw.count()), raw.prevTs() == null ? null : Instant.ofEpochMilli(prevTs),
                number(raw.prevCount()), data, raw.length());
    }

    /** A stored number as BullMQ reads it: absent or not a number reads as 0. */
    static long number(String v) {
        if (v == null || v.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            try {
                double d = Double.parseDouble(v);
                return Double.isFinite(d) ? (long) d : 0;
            } catch (NumberFormatException e2) {
                return 0;
            }
        }
    }
}
