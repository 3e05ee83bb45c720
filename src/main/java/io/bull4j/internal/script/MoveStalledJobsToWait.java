package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The stalled scan (lua/moveStalledJobsToWait.lua): requeues active jobs whose lock expired. */
public final class MoveStalledJobsToWait {
    static final LuaScript SCRIPT = LuaScript.load("moveStalledJobsToWait");

    private MoveStalledJobsToWait() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.stalled(), k.waitList(), k.active(), k.stalledCheck(), k.meta(), k.events(), k.marker(),
                k.failed()};
    }

    /** Returns the ids moved back to wait (empty when another worker checked within the interval). */
    public static CompletableFuture<List<String>> run(ScriptRunner runner, QueueKeys k, long now, int maxStalledCount,
                                                      long stalledIntervalMs) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k), k.base(), Long.toString(now),
                Integer.toString(maxStalledCount), Long.toString(stalledIntervalMs)).thenApply(r -> {
                    List<String> ids = new ArrayList<>(r.size());
                    r.forEach(id -> ids.add(String.valueOf(id)));
                    return ids;
                });
    }
}
