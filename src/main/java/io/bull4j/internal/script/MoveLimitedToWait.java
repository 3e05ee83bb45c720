package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The rate-limited transition (lua/moveLimitedToWait.lua): an active job whose processor hit the rate limit goes
 * back to wait (or the front of its priority) with no attempt spent. Yields the limiter's remaining ms.
 */
public final class MoveLimitedToWait {
    static final LuaScript SCRIPT = LuaScript.load("moveLimitedToWait");

    private MoveLimitedToWait() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.active(), k.waitList(), k.prioritized(), k.marker(), k.meta(), k.events(),
                k.stalled(), k.limiter()};
    }

    public static CompletableFuture<Long> run(ScriptRunner runner, QueueKeys k, String jobId, String token) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), jobId, token)
                .thenApply(code -> {
                    ScriptErrors.check(code, k.name(), jobId, "moveJobFromActiveToWait");
                    return code;
                });
    }
}
