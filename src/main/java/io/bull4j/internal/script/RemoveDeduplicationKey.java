package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** Ends a job's deduplication window if the job still owns it (lua/removeDeduplicationKey.lua). */
public final class RemoveDeduplicationKey {
    static final LuaScript SCRIPT = LuaScript.load("removeDeduplicationKey");

    private RemoveDeduplicationKey() {
    }

    public static CompletableFuture<Boolean> run(ScriptRunner runner, QueueKeys k, String dedupId, String jobId) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, new String[] {k.dedup(dedupId)}, jobId)
                .thenApply(n -> n == 1L);
    }
}
