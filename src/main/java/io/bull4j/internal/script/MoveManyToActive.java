package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Several fetches for one worker in one call (lua/moveManyToActive.lua): up to one job per token, each taken as a
 * {@link MoveToActive} call at the same now would take it. Used when a fetch reported more jobs ready than the one
 * it took, to fill the worker's other free slots without one script call per job.
 */
public final class MoveManyToActive {
    static final LuaScript SCRIPT = LuaScript.load("moveManyToActive");

    private MoveManyToActive() {
    }

    /**
     * One result per take, in order: the jobs taken, then, when fewer than {@code tokens.size()} were, the empty
     * fetch that stopped it (its next delayed time, or the rate limit's wait). Job {@code i} holds token {@code i}.
     */
    public static CompletableFuture<List<FetchedJob>> run(ScriptRunner runner, QueueKeys k, long now,
                                                          List<String> tokens, long lockMs, String workerName,
                                                          long limiterMax, long limiterDurationMs) {
        List<String> args = new ArrayList<>(6 + tokens.size());
        args.add(k.base());
        args.add(Long.toString(now));
        args.add(Long.toString(lockMs));
        args.add(workerName == null ? "" : workerName);
        args.add(MoveToActive.limiterArg(limiterMax));
        args.add(MoveToActive.limiterArg(limiterDurationMs));
        args.addAll(tokens);
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, MoveToActive.keys(k),
                args.toArray(String[]::new)).thenApply(replies -> {
                    List<FetchedJob> out = new ArrayList<>(replies.size());
                    for (Object reply : replies) {
                        @SuppressWarnings("unchecked")
                        List<Object> one = (List<Object>) reply;
                        out.add(FetchedJob.parse(one));
                    }
                    return out;
                });
    }
}
