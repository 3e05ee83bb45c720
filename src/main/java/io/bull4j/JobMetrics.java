package io.bull4j;

import java.time.Instant;
import java.util.List;

/**
 * A queue's finished-job metrics of one kind, as {@link Queue#getMetrics(JobState, long, long)} reads them: the
 * jobs counted so far and the per-minute counts that workers with {@link WorkerOptions.Builder#metrics(int) metrics}
 * (bull4j's and BullMQ's alike) write. The same numbers as BullMQ's {@code getMetrics}: {@code count} is
 * {@code meta.count}, {@code prevTimestamp} and {@code prevCount} its {@code meta.prevTS} and {@code meta.prevCount},
 * {@code data} its {@code data} and {@code dataPoints} its {@code count}. Immutable.
 *
 * <pre>{@code
 * JobMetrics m = queue.getMetrics(JobState.COMPLETED, 0, 59);   // the last hour
 * long lastHour = m.data().stream().mapToLong(Long::longValue).sum();
 * }</pre>
 *
 * @param count the jobs counted since the metrics began (0 when none)
 * @param prevTimestamp when the last minute was closed into the data (the first counted job's finish until a later
 *     minute's finish closes it); null when nothing was counted
 * @param prevCount {@code count} as it stood at {@code prevTimestamp} (the job finishing then excluded)
 * @param data the page of per-minute counts asked for, newest minute first; the minute of {@code prevTimestamp} and
 *     those after it are not in it yet (a minute is written by the first finish after it)
 * @param dataPoints how many per-minute counts are kept in all
 */
public record JobMetrics(long count, Instant prevTimestamp, long prevCount, List<Long> data, long dataPoints) {
    /**
     * A copy-safe instance.
     *
     * @param count the jobs counted since the metrics began
     * @param prevTimestamp when the last minute was closed, or null
     * @param prevCount the count at that time
     * @param data per-minute counts, newest first
     * @param dataPoints how many per-minute counts are kept in all
     */
    public JobMetrics {
        data = List.copyOf(data);
    }
}
