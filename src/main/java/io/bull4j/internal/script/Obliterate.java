package io.bull4j.internal.script;

import io.bull4j.Bull4jException;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** One batch of deleting a paused queue (lua/obliterate.lua); the caller repeats while it reports more. */
public final class Obliterate {
    static final LuaScript SCRIPT = LuaScript.load("obliterate");

    private Obliterate() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.meta(), k.active(), k.delayed(), k.completed(), k.waitList(), k.paused(),
                k.prioritized(), k.failed(), k.waitingChildren()};
    }

    /** Completes with true while more remains to delete; fails when the queue is not paused or has active jobs. */
    public static CompletableFuture<Boolean> run(ScriptRunner runner, QueueKeys k, int batch, boolean force) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), Integer.toString(batch),
                force ? "1" : "0").thenApply(code -> {
                    if (code == -1) {
                        throw new Bull4jException("Cannot obliterate queue " + k.name() + ": it is not paused");
                    }
                    if (code == -2) {
                        throw new Bull4jException("Cannot obliterate queue " + k.name() + " with active jobs");
                    }
                    return code == 1;
                });
    }
}
