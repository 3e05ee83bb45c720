package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Removing the jobs of one state older than a cut-off (lua/cleanJobsInSet.lua); emits {@code cleaned}. */
public final class CleanJobsInSet {
    static final LuaScript SCRIPT = LuaScript.load("cleanJobsInSet");

    private CleanJobsInSet() {
    }

    /**
     * @param state a state key name: wait, paused, active, prioritized, delayed, completed, failed,
     *              waiting-children
     * @param cutoffMs jobs whose time is at or before this are removed
     * @param limit at most this many (0 = no limit)
     */
    public static CompletableFuture<List<String>> run(ScriptRunner runner, QueueKeys k, String state, long cutoffMs,
                                                      long limit) {
        String[] keys = {k.state(state), k.events()};
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys, k.base(), Long.toString(cutoffMs),
                Long.toString(limit), state).thenApply(reply -> {
                    List<String> ids = new ArrayList<>(reply.size());
                    reply.forEach(id -> ids.add((String) id));
                    return ids;
                });
    }
}
