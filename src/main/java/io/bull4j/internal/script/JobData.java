package io.bull4j.internal.script;

import io.bull4j.internal.codec.Utf16;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The job-data transitions (lua/updateProgress.lua, addLog.lua, clearLogs.lua, updateData.lua, getState.lua): small
 * writes and reads on one job that need to see whether the job exists in the same step.
 */
public final class JobData {
    static final LuaScript PROGRESS = LuaScript.load("updateProgress");
    static final LuaScript LOG = LuaScript.load("addLog");
    static final LuaScript CLEAR_LOGS = LuaScript.load("clearLogs");
    static final LuaScript DATA = LuaScript.load("updateData");
    static final LuaScript STATE = LuaScript.load("getState");

    private JobData() {
    }

    public static CompletableFuture<Void> updateProgress(ScriptRunner runner, QueueKeys k, String jobId, String json) {
        return runner.<Long>run(PROGRESS, ScriptOutputType.INTEGER, new String[] {k.job(jobId), k.events(), k.meta()},
                jobId, json).thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "updateProgress"));
    }

    /** Returns the number of log lines after the append. */
    public static CompletableFuture<Long> addLog(ScriptRunner runner, QueueKeys k, String jobId, String line,
                                                 Integer keepLogs) {
        // as BullMQ's job.log sends it: a plain string argument, lone surrogates as U+FFFD
        return runner.<Long>run(LOG, ScriptOutputType.INTEGER, new String[] {k.job(jobId), k.logs(jobId)},
                Utf16.replaceLoneSurrogates(line),
                keepLogs == null ? "" : keepLogs.toString()).thenApply(code -> {
                    ScriptErrors.check(code, k.name(), jobId, "addLog");
                    return code;
                });
    }

    /** Keeps the newest {@code keep} lines of the job's log (0: deletes it); returns the number left. */
    public static CompletableFuture<Long> clearLogs(ScriptRunner runner, QueueKeys k, String jobId, int keep) {
        return runner.run(CLEAR_LOGS, ScriptOutputType.INTEGER, new String[] {k.logs(jobId)}, Integer.toString(keep));
    }

    public static CompletableFuture<Void> updateData(ScriptRunner runner, QueueKeys k, String jobId, String json) {
        return runner.<Long>run(DATA, ScriptOutputType.INTEGER, new String[] {k.job(jobId)}, json)
                .thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "updateData"));
    }

    /** BullMQ's state name, or "unknown". */
    public static CompletableFuture<String> state(ScriptRunner runner, QueueKeys k, String jobId) {
        return runner.run(STATE, ScriptOutputType.VALUE, new String[] {k.completed(), k.failed(), k.delayed(),
                k.prioritized(), k.active(), k.waitList(), k.paused(), k.waitingChildren()}, jobId);
    }
}
