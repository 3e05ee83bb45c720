package io.bull4j.internal.script;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a fetch returned: a job's id and hash, or none and the due time of the next delayed job (0 if none). */
public final class FetchedJob {
    public static final FetchedJob NONE = new FetchedJob(null, Map.of(), 0, 0);

    private final String id;
    private final Map<String, String> fields;
    private final long nextDelayedMs;
    private final long readyCount;

    private FetchedJob(String id, Map<String, String> fields, long nextDelayedMs, long readyCount) {
        this.id = id;
        this.fields = fields;
        this.nextDelayedMs = nextDelayedMs;
        this.readyCount = readyCount;
    }

    /** Parses {fields, id, 0, 0, readyCount} or {0, 0, rateLimitMs, nextDelayedMs}. */
    static FetchedJob parse(List<Object> reply) {
        Object id = reply.get(1);
        if (!(id instanceof String)) {
            long next = reply.size() > 3 && reply.get(3) instanceof Long ? (Long) reply.get(3) : 0;
            return next == 0 ? NONE : new FetchedJob(null, Map.of(), next, 0);
        }
        long ready = reply.size() > 4 && reply.get(4) instanceof Long ? (Long) reply.get(4) : 0;
        return new FetchedJob((String) id, pairs((List<?>) reply.get(0)), 0, ready);
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

    /** With a job: how many more jobs were ready to take just after it (a hint; the queue may change at once). */
    public long readyCount() {
        return readyCount;
    }
}
