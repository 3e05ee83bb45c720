package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The size of every state in one read (lua/getCounts.lua). */
public final class GetCounts {
    static final LuaScript SCRIPT = LuaScript.load("getCounts");

    /** The state key names, in the order of the counts {@link #run} returns. */
    public static final List<String> STATES = List.of("wait", "paused", "active", "prioritized", "delayed",
            "completed", "failed", "waiting-children");

    private GetCounts() {
    }

    static String[] keys(QueueKeys k) {
        return STATES.stream().map(k::state).toArray(String[]::new);
    }

    /** One count per entry of {@link #STATES}, in that order. */
    public static CompletableFuture<List<Long>> run(ScriptRunner runner, QueueKeys k) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k)).thenApply(reply -> {
            List<Long> counts = new ArrayList<>(reply.size());
            reply.forEach(v -> counts.add((Long) v));
            return counts;
        });
    }
}
