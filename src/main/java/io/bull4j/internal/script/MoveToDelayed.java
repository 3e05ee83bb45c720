package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** The delay transition (lua/moveToDelayed.lua): an active job waits until a given time (backoff or by request). */
public final class MoveToDelayed {
    static final LuaScript SCRIPT = LuaScript.load("moveToDelayed");

    private MoveToDelayed() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.active(), k.delayed(), k.marker(), k.meta(), k.events(), k.stalled(), k.failed()};
    }

    /** {@code failedReason} null for a processor's own move, which counts no attempt. */
    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId, String token,
                                              long dueMs, long delayMs, String failedReason, String stacktrace) {
        boolean failure = failedReason != null;
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), jobId, token,
                Long.toString(dueMs), Long.toString(delayMs), failure ? "1" : "0", failure ? failedReason : "",
                stacktrace == null ? "" : stacktrace)
                .thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "moveToDelayed"));
    }
}
