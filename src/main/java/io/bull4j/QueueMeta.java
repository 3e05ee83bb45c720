package io.bull4j;

import java.time.Duration;
import java.util.Map;

/**
 * A queue's {@code meta} hash as {@link Queue#getMeta()} and BullMQ's {@code getMeta} read it: whether it is paused,
 * its global concurrency and rate limit, the events stream's cap, and the version of the library that last opened
 * a Queue on it. Immutable.
 *
 * <pre>{@code
 * QueueMeta meta = queue.getMeta();
 * if (meta.paused()) { ... }
 * }</pre>
 *
 * @param paused whether the queue is paused (field {@code paused} is {@code "1"})
 * @param concurrency the global concurrency, or null when none is set
 * @param maxLenEvents the events stream's approximate cap ({@code opts.maxLenEvents}), or null when unset
 * @param max the global rate limit's max, or null when unset
 * @param duration the global rate limit's window, or null when unset
 * @param version {@code bullmq:<version>} or {@code bull4j:<version>}, of the last Queue that wrote the hash, or
 *     null
 * @param fields every field of the hash as stored
 */
public record QueueMeta(boolean paused, Integer concurrency, Long maxLenEvents, Long max, Duration duration,
                        String version, Map<String, String> fields) {
    /**
     * A copy-safe instance.
     *
     * @param paused whether the queue is paused
     * @param concurrency the global concurrency, or null
     * @param maxLenEvents the events stream's cap, or null
     * @param max the global rate limit's max, or null
     * @param duration the global rate limit's window, or null
     * @param version the version that wrote the hash, or null
     * @param fields every field of the hash
     */
    public QueueMeta {
        fields = Map.copyOf(fields);
    }
}
