package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** Pausing and resuming a queue for all workers (lua/pause.lua); emits {@code paused} or {@code resumed}. */
public final class Pause {
    static final LuaScript SCRIPT = LuaScript.load("pause");

    private Pause() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.meta(), k.marker(), k.events(), k.waitList(), k.paused(), k.prioritized(),
                k.delayed()};
    }

    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, boolean pause) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), pause ? "paused" : "resumed")
                .thenAccept(ignored -> { });
    }
}
