package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** Removing every job that waits to run, and optionally the delayed ones (lua/drain.lua). */
public final class Drain {
    static final LuaScript SCRIPT = LuaScript.load("drain");

    private Drain() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.waitList(), k.paused(), k.prioritized(), k.delayed()};
    }

    /** Completes with the number of jobs removed. */
    public static CompletableFuture<Long> run(ScriptRunner runner, QueueKeys k, boolean delayed) {
        return runner.run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), delayed ? "1" : "0");
    }
}
