package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** Removing a job scheduler and its delayed pending iteration (lua/removeJobScheduler.lua). */
public final class RemoveJobScheduler {
    static final LuaScript SCRIPT = LuaScript.load("removeJobScheduler");

    private RemoveJobScheduler() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.repeat(), k.delayed(), k.events()};
    }

    /** True when the scheduler existed. */
    public static CompletableFuture<Boolean> run(ScriptRunner runner, QueueKeys k, String schedulerId) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), schedulerId)
                .thenApply(r -> r == 1L);
    }
}
