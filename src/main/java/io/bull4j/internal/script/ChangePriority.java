package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** The priority transition (lua/changePriority.lua): a new priority, and a new place for a job not yet run. */
public final class ChangePriority {
    static final LuaScript SCRIPT = LuaScript.load("changePriority");

    private ChangePriority() {
    }

    static String[] keys(QueueKeys k, String jobId) {
        return new String[] {k.job(jobId), k.waitList(), k.prioritized(), k.priorityCounter(), k.active(),
                k.marker(), k.meta()};
    }

    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId, int priority,
                                              boolean lifo) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k, jobId), jobId, Integer.toString(priority),
                lifo ? "1" : "0").thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "changePriority"));
    }
}
