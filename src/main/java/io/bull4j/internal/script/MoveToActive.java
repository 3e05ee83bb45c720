package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The fetch transition (lua/moveToActive.lua): promotes due delayed jobs, takes and locks the next job. */
public final class MoveToActive {
    static final LuaScript SCRIPT = LuaScript.load("moveToActive");

    private MoveToActive() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.waitList(), k.active(), k.prioritized(), k.priorityCounter(), k.delayed(), k.marker(),
                k.meta(), k.events(), k.failed()};
    }

    public static CompletableFuture<FetchedJob> run(ScriptRunner runner, QueueKeys k, long now, String token,
                                                    long lockMs, String workerName) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k), k.base(), Long.toString(now), token,
                Long.toString(lockMs), workerName == null ? "" : workerName).thenApply(FetchedJob::parse);
    }
}
