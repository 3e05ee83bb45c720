package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * A parent's own flow transitions: parking an active parent until its children are done
 * (lua/moveToWaitingChildren.lua), unlinking a child from its parent (lua/removeChildDependency.lua), and
 * removing a parent's unprocessed children (lua/removeUnprocessedChildren.lua).
 */
public final class FlowSteps {
    static final LuaScript MOVE_TO_WAITING_CHILDREN = LuaScript.load("moveToWaitingChildren");
    static final LuaScript REMOVE_CHILD_DEPENDENCY = LuaScript.load("removeChildDependency");
    static final LuaScript REMOVE_UNPROCESSED_CHILDREN = LuaScript.load("removeUnprocessedChildren");

    private FlowSteps() {
    }

    /**
     * True when the job moved to waiting-children, false when nothing is pending (it stays active). Refusals
     * (lock, state, a failed child: reason FAILED_CHILDREN) are JobExceptions.
     *
     * @param childKey a child's job key to wait for, or null for any pending child
     */
    public static CompletableFuture<Boolean> moveToWaitingChildren(ScriptRunner runner, QueueKeys k, String jobId,
                                                                   String token, long now, String childKey) {
        return runner.<Long>run(MOVE_TO_WAITING_CHILDREN, ScriptOutputType.INTEGER,
                new String[] {k.active(), k.waitingChildren(), k.stalled(), k.events(), k.meta()}, k.base(), jobId,
                token, Long.toString(now), childKey == null ? "" : childKey)
                .thenApply(code -> {
                    ScriptErrors.check(code, k.name(), jobId, "moveToWaitingChildren");
                    return code == 0L;
                });
    }

    /** True when the child was unlinked, false when it was not pending for its parent; -1/-5 are exceptions. */
    public static CompletableFuture<Boolean> removeChildDependency(ScriptRunner runner, QueueKeys k, String jobId) {
        return runner.<Long>run(REMOVE_CHILD_DEPENDENCY, ScriptOutputType.INTEGER, new String[] {k.meta()}, k.base(),
                jobId).thenApply(code -> {
                    if (code == -5L) {
                        throw new io.bull4j.JobException(k.name(), jobId, io.bull4j.JobException.Reason.JOB_NOT_FOUND,
                                "Missing key for parent job of " + jobId + ". removeChildDependency");
                    }
                    ScriptErrors.check(code, k.name(), jobId, "removeChildDependency");
                    return code == 0L;
                });
    }

    /** Removes the parent's pending children (and theirs) that no worker holds. */
    public static CompletableFuture<Void> removeUnprocessedChildren(ScriptRunner runner, QueueKeys k, String jobId) {
        return runner.<Long>run(REMOVE_UNPROCESSED_CHILDREN, ScriptOutputType.INTEGER, new String[] {k.meta()},
                k.base(), jobId).thenAccept(code -> { });
    }
}
