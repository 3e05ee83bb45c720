package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A batch of finished jobs retried, or delayed jobs promoted, back to wait (lua/moveJobsToWait.lua); as in BullMQ,
 * a job with a priority goes to wait too.
 */
public final class MoveJobsToWait {
    static final LuaScript SCRIPT = LuaScript.load("moveJobsToWait");

    private MoveJobsToWait() {
    }

    /** How many jobs one call moved, and whether more may remain. */
    public record Batch(int moved, boolean more) {
    }

    /**
     * @param state "completed", "failed" or "delayed"
     * @param maxScore the highest score to take: finishedOn ms for finished jobs, "+inf" for delayed ones
     */
    public static CompletableFuture<Batch> run(ScriptRunner runner, QueueKeys k, String state, int count,
                                               String maxScore) {
        String[] keys = {k.state(state), k.waitList(), k.meta(), k.active(), k.marker(), k.events()};
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys, k.base(), Integer.toString(count),
                maxScore, state).thenApply(r -> new Batch(((Long) r.get(0)).intValue(), (Long) r.get(1) == 1L));
    }
}
