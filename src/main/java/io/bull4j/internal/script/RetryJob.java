package io.bull4j.internal.script;

import io.bull4j.internal.codec.Utf16;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The immediate-retry transition (lua/retryJob.lua): due delayed jobs are promoted first, then the active job goes
 * back to wait for its lock owner.
 */
public final class RetryJob {
    static final LuaScript SCRIPT = LuaScript.load("retryJob");

    private RetryJob() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.active(), k.waitList(), k.prioritized(), k.priorityCounter(), k.marker(), k.meta(),
                k.events(), k.stalled(), k.delayed(), k.failed()};
    }

    /** @param now the time (ms) at which delayed jobs count as due */
    public static CompletableFuture<Void> run(ScriptRunner runner, QueueKeys k, String jobId, String token,
                                              String failedReason, String stacktrace, long now) {
        // as BullMQ's retry sends it: a plain string argument, lone surrogates as U+FFFD
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), jobId, token,
                Utf16.replaceLoneSurrogates(failedReason),
                stacktrace == null ? "" : stacktrace, Long.toString(now))
                .thenAccept(code -> ScriptErrors.check(code, k.name(), jobId, "retryJob"));
    }
}
