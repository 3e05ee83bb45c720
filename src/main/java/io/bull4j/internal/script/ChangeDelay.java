package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** The reschedule transition (lua/changeDelay.lua): a delayed job becomes due {@code delayMs} after now. */
public final class ChangeDelay {
    static final LuaScript SCRIPT = LuaScript.load("changeDelay");

    private ChangeDelay() {
    }

    static String[] keys(QueueKeys k, String jobId) {
        return new String[] {k.job(jobId), k.delayed(), k.marker(), k.meta(), k.events()};
    }

    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId, long delayMs,
                                              long now) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k, jobId), jobId, Long.toString(delayMs),
                Long.toString(now)).thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "changeDelay"));
    }
}
