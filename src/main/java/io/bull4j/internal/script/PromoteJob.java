package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** The promote transition (lua/promote.lua): a delayed job becomes ready now. */
public final class PromoteJob {
    static final LuaScript SCRIPT = LuaScript.load("promote");

    private PromoteJob() {
    }

    static String[] keys(QueueKeys k, String jobId) {
        return new String[] {k.job(jobId), k.delayed(), k.waitList(), k.prioritized(), k.priorityCounter(),
                k.active(), k.marker(), k.meta(), k.events()};
    }

    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k, jobId), jobId)
                .thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "promote"));
    }
}
