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
        return run(runner, k, now, token, lockMs, workerName, 0, 0);
    }

    /** With the worker's rate limiter: at most {@code limiterMax} jobs per window (0: the worker has none). */
    public static CompletableFuture<FetchedJob> run(ScriptRunner runner, QueueKeys k, long now, String token,
                                                    long lockMs, String workerName, long limiterMax,
                                                    long limiterDurationMs) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k), k.base(), Long.toString(now), token,
                Long.toString(lockMs), workerName == null ? "" : workerName, limiterArg(limiterMax),
                limiterArg(limiterDurationMs)).thenApply(FetchedJob::parse);
    }

    /** A limiter value as the scripts take it: "" for none. */
    static String limiterArg(long value) {
        return value > 0 ? Long.toString(value) : "";
    }
}
