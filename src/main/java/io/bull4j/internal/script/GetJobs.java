package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Ids in a range and their hashes, for several states in one read (lua/getJobs.lua), with BullMQ's ordering:
 * lists newest first, sorted sets by descending score, both reversed when ascending.
 */
public final class GetJobs {
    static final LuaScript SCRIPT = LuaScript.load("getJobs");

    private GetJobs() {
    }

    /** A job as found: its id and hash fields. */
    public record Found(String id, Map<String, String> fields) {
    }

    /** One list per entry of {@code states} (state key names such as "wait", "completed"), in that order. */
    public static CompletableFuture<List<List<Found>>> run(ScriptRunner runner, QueueKeys k, long start, long end,
                                                            boolean asc, List<String> states) {
        List<String> args = new ArrayList<>(3 + states.size());
        args.add(Long.toString(start));
        args.add(Long.toString(end));
        args.add(asc ? "1" : "0");
        args.addAll(states);
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, new String[] {k.base()},
                args.toArray(String[]::new)).thenApply(GetJobs::parse);
    }

    @SuppressWarnings("unchecked")
    private static List<List<Found>> parse(List<Object> reply) {
        List<List<Found>> perState = new ArrayList<>(reply.size());
        for (Object state : reply) {
            List<Object> flat = (List<Object>) state;
            List<Found> found = new ArrayList<>(flat.size() / 2);
            for (int i = 0; i + 1 < flat.size(); i += 2) {
                List<Object> pairs = (List<Object>) flat.get(i + 1);
                Map<String, String> fields = new LinkedHashMap<>();
                for (int j = 0; j + 1 < pairs.size(); j += 2) {
                    fields.put((String) pairs.get(j), (String) pairs.get(j + 1));
                }
                found.add(new Found((String) flat.get(i), fields));
            }
            perState.add(found);
        }
        return perState;
    }
}
