package io.bull4j.internal.script;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a fetch returned: a job's id and hash, or none and the due time of the next delayed job (0 if none). */
public final class FetchedJob {
    public static final FetchedJob NONE = new FetchedJob(null, Map.of(), 0, 0, 0, false, -1);

    private final String id;
    private final Map<String, String> fields;
    private final long nextDelayedMs;
    private final long readyCount;
    private final long rateLimitMs;
    private final boolean schedulerSettled;
    private final long drainedNextDelayedMs;

    private FetchedJob(String id, Map<String, String> fields, long nextDelayedMs, long readyCount,
                       long rateLimitMs, boolean schedulerSettled, long drainedNextDelayedMs) {
        this.id = id;
        this.fields = fields;
        this.nextDelayedMs = nextDelayedMs;
        this.readyCount = readyCount;
        this.rateLimitMs = rateLimitMs;
        this.schedulerSettled = schedulerSettled;
        this.drainedNextDelayedMs = drainedNextDelayedMs;
    }

    /** A job read from Redis rather than returned by a fetch (a fetch whose reply was lost, found again). */
    public static FetchedJob of(String id, Map<String, String> fields) {
        return new FetchedJob(id, Map.copyOf(fields), 0, 0, 0, false, -1);
    }

    /**
     * Parses {fields, id, 0, 0, readyCount, schedulerSettled[, nextDelayedMs]} or {0, 0, rateLimitMs, nextDelayedMs}.
     */
    static FetchedJob parse(List<Object> reply) {
        Object id = reply.get(1);
        if (!(id instanceof String)) {
            long limited = reply.size() > 2 && reply.get(2) instanceof Long ? (Long) reply.get(2) : 0;
            long next = reply.size() > 3 && reply.get(3) instanceof Long ? (Long) reply.get(3) : 0;
            return next == 0 && limited <= 0 ? NONE : new FetchedJob(null, Map.of(), next, 0, Math.max(limited, 0),
                    false, -1);
        }
        long ready = reply.size() > 4 && reply.get(4) instanceof Long ? (Long) reply.get(4) : 0;
        boolean settled = reply.size() > 5 && reply.get(5) instanceof Long s && s == 1;
        long drained = reply.size() > 6 && reply.get(6) instanceof Long d ? d : -1;
        return new FetchedJob((String) id, pairs((List<?>) reply.get(0)), 0, ready, 0, settled, drained);
    }

    static Map<String, String> pairs(List<?> flat) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return map;
    }

    public boolean isPresent() {
        return id != null;
    }

    public String id() {
        return id;
    }

    public Map<String, String> fields() {
        return fields;
    }

    public long nextDelayedMs() {
        return nextDelayedMs;
    }

    /** Without a job: the ms until the rate limit's window ends (0 when the fetch was not rate limited). */
    public long rateLimitMs() {
        return rateLimitMs;
    }

    /** With a job: how many more jobs were ready to take just after it (a hint; the queue may change at once). */
    public long readyCount() {
        return readyCount;
    }

    /**
     * With a job that is a job scheduler's run: true when the fetch itself settled the scheduler's next run (added
     * it, or found none due), so the worker must not ask again; false when that is left to the worker.
     */
    public boolean schedulerSettled() {
        return schedulerSettled;
    }

    /**
     * With a job: when the fetch found nothing else ready (and no rate limit, pause or global maximum in play), what
     * a fetch right after it would have answered, the due time of the earliest delayed job (0 when none); -1 when
     * the fetch gave no such hint.
     */
    public long drainedNextDelayedMs() {
        return drainedNextDelayedMs;
    }
}
