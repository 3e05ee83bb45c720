package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * Removing one job (lua/removeJob.lua) from any state, with its hash and sub-keys. Emits {@code removed}.
 * A job locked by a worker is refused, as is the pending iteration of a job scheduler (only the scheduler may
 * remove it); a missing job is not an error, nothing is emitted.
 */
public final class RemoveJob {
    static final LuaScript SCRIPT = LuaScript.load("removeJob");

    private RemoveJob() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.meta(), k.events()};
    }

    /** True when the job was removed; false when it is locked, belongs to a job scheduler, or does not exist. */
    public static CompletableFuture<Boolean> run(ScriptRunner runner, QueueKeys k, String jobId) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), jobId)
                .thenApply(code -> code == 1L);
    }
}
