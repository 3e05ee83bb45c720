package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** The give-back transition (lua/moveToWait.lua): a fetched, never-started job returns to the front of wait. */
public final class MoveToWait {
    static final LuaScript SCRIPT = LuaScript.load("moveToWait");

    private MoveToWait() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.active(), k.waitList(), k.marker(), k.meta(), k.events(), k.stalled(), k.failed()};
    }

    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId, String token) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), jobId, token)
                .thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "moveToWait"));
    }
}
