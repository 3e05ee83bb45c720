package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The sweep between stalled passes (lua/sweepStalledJobs.lua): requeues jobs the last pass marked whose lock has
 * expired since, without marking any or touching {@code stalled-check}.
 */
public final class SweepStalledJobs {
    static final LuaScript SCRIPT = LuaScript.load("sweepStalledJobs");

    private SweepStalledJobs() {
    }

    /** What one sweep did. */
    public record Result(boolean passDue, List<String> moved) {
    }

    /** Sweeps; {@link Result#passDue()} says that {@code stalled-check} has expired and a regular pass is due. */
    public static CompletableFuture<Result> run(ScriptRunner runner, QueueKeys k, long now, int maxStalledCount) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, MoveStalledJobsToWait.keys(k), k.base(),
                Long.toString(now), Integer.toString(maxStalledCount)).thenApply(r -> {
                    List<String> ids = new ArrayList<>(Math.max(0, r.size() - 1));
                    for (int i = 1; i < r.size(); i++) {
                        ids.add(String.valueOf(r.get(i)));
                    }
                    return new Result(((Number) r.get(0)).longValue() == 1, ids);
                });
    }
}
