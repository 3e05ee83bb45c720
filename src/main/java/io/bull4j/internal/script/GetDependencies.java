package io.bull4j.internal.script;

import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** One call of a paged read of a parent's pending or processed children (lua/getDependencies.lua). */
public final class GetDependencies {
    static final LuaScript SCRIPT = LuaScript.load("getDependencies");
    /** Scans per call, as BullMQ's paged reads do. */
    public static final int SCANS_PER_CALL = 5;

    private GetDependencies() {
    }

    /**
     * One call's reply: where the scan stopped ({@code cursor} "0" when it went round), the position reached, the
     * elements (child key, and value for the processed hash: null for the set), the size of the set or hash, and
     * each element's job hash (empty when the job is gone).
     */
    public record Chunk(String cursor, long position, List<String> keys, List<String> values, long total,
                        List<Map<String, String>> jobs) {
    }

    /** Reads from {@code position} (scan {@code cursor}) the elements at positions {@code first..last}. */
    public static CompletableFuture<Chunk> run(ScriptRunner runner, String key, long first, long last, String cursor,
                                               long position) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, new String[] {key}, Long.toString(first),
                Long.toString(last), cursor, Long.toString(position), Integer.toString(SCANS_PER_CALL))
                .thenApply(GetDependencies::parse);
    }

    private static Chunk parse(List<Object> reply) {
        boolean hash = ((Long) reply.get(5)) == 1L;
        List<?> elements = (List<?>) reply.get(2);
        List<String> keys = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < elements.size(); i += hash ? 2 : 1) {
            keys.add(text(elements.get(i)));
            values.add(hash ? text(elements.get(i + 1)) : null);
        }
        List<Map<String, String>> jobs = new ArrayList<>();
        for (Object j : (List<?>) reply.get(4)) {
            List<?> flat = (List<?>) j;
            Map<String, String> fields = new LinkedHashMap<>();
            for (int i = 0; i + 1 < flat.size(); i += 2) {
                fields.put(text(flat.get(i)), text(flat.get(i + 1)));
            }
            jobs.add(fields);
        }
        return new Chunk(text(reply.get(0)), (Long) reply.get(1), keys, values, (Long) reply.get(3), jobs);
    }

    private static String text(Object v) {
        return v == null ? null : v.toString();
    }
}
