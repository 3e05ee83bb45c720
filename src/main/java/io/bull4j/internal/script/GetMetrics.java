package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Reads a finished-job metrics hash and a page of its per-minute data (lua/getMetrics.lua). */
public final class GetMetrics {
    static final LuaScript SCRIPT = LuaScript.load("getMetrics");

    /**
     * The raw reply: the hash's {@code count}, {@code prevTS} and {@code prevCount} (null when absent), the page of
     * data points as stored, and the length of the data list.
     */
    public record Raw(String count, String prevTs, String prevCount, List<String> page, long length) {
    }

    private GetMetrics() {
    }

    static String[] keys(QueueKeys k, String type) {
        return new String[] {k.metrics(type), k.metricsData(type)};
    }

    /** Reads the metrics of {@code type} ("completed" or "failed"), positions {@code start..end} of its data. */
    public static CompletableFuture<Raw> run(ScriptRunner runner, QueueKeys k, String type, long start, long end) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k, type), Long.toString(start),
                Long.toString(end)).thenApply(reply -> {
                    List<?> meta = (List<?>) reply.get(0);
                    List<String> page = new ArrayList<>();
                    ((List<?>) reply.get(1)).forEach(v -> page.add(v == null ? null : v.toString()));
                    return new Raw(text(meta.get(0)), text(meta.get(1)), text(meta.get(2)), page,
                            (Long) reply.get(2));
                });
    }

    private static String text(Object v) {
        return v == null ? null : v.toString();
    }
}
