package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * Removing one job (lua/removeJob.lua) from any state, with its hash and sub-keys. Emits {@code removed}.
 * A job locked by a worker is refused, as is the pending iteration of a job scheduler (only the scheduler may
 * remove it); a missing job is not an error, nothing is emitted. A flow child is unlinked from its parent, and a
 * parent's children are removed with it unless asked not to.
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
        return run(runner, k, jobId, true);
    }

    /** With {@code removeChildren}, a flow parent's children go too (refused when a pending one is locked). */
    public static CompletableFuture<Boolean> run(ScriptRunner runner, QueueKeys k, String jobId,
                                                 boolean removeChildren) {
        return runner.<Long>run(SCRIPT, ScriptOutputType.INTEGER, keys(k), k.base(), jobId, removeChildren ? "1" : "0")
                .thenApply(code -> code == 1L);
    }
}
