package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** The retry-a-finished-job transition (lua/reprocessJob.lua): a completed or failed job goes back to wait. */
public final class ReprocessJob {
    static final LuaScript SCRIPT = LuaScript.load("reprocessJob");

    private ReprocessJob() {
    }

    static String[] keys(QueueKeys k, String jobId, boolean failed) {
        return new String[] {k.job(jobId), failed ? k.failed() : k.completed(), k.waitList(), k.prioritized(),
                k.priorityCounter(), k.active(), k.marker(), k.meta(), k.events()};
    }

    /** {@code failed} tells which state the job must be in: failed, else completed. */
    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId, boolean failed,
                                              boolean lifo, boolean resetAttemptsMade, boolean resetAttemptsStarted) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k, jobId, failed), jobId,
                failed ? "failed" : "completed", flag(lifo), flag(resetAttemptsMade), flag(resetAttemptsStarted))
                .thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "reprocessJob",
                        failed ? "failed" : "completed"));
    }

    private static String flag(boolean b) {
        return b ? "1" : "0";
    }
}
