package io.bull4j.internal.script;

import io.bull4j.RedisException;
import io.bull4j.internal.codec.Utf16;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Several finishes of one queue's jobs in one call (lua/moveManyToFinished.lua): each applied as its own
 * {@link MoveToFinished} call would be, in the order given, with its own outcome. The requests must share the
 * worker's settings (lock duration, name, limiter, metrics); they come from one worker.
 */
public final class MoveManyToFinished {
    static final LuaScript SCRIPT = LuaScript.load("moveManyToFinished");
    /** The most finishes one call takes. */
    public static final int MAX = 20;

    private MoveManyToFinished() {
    }

    /** One outcome per request, in order: the fetched next job (as {@link MoveToFinished#run}), or its error. */
    public static CompletableFuture<List<Outcome>> run(ScriptRunner runner, QueueKeys k,
                                                         List<MoveToFinished.Request> rs) {
        MoveToFinished.Request first = rs.get(0);
        List<String> args = new ArrayList<>(7 + 12 * rs.size());
        args.add(k.base());
        args.add(Long.toString(first.lockMs));
        args.add(first.workerName == null ? "" : first.workerName);
        args.add(MoveToActive.limiterArg(first.limiterMax));
        args.add(MoveToActive.limiterArg(first.limiterDurationMs));
        args.add(first.metricsMaxDataPoints > 0 ? Integer.toString(first.metricsMaxDataPoints) : "");
        args.add(k.name());
        for (MoveToFinished.Request r : rs) {
            args.add(r.jobId);
            args.add(r.token);
            args.add(Long.toString(r.now));
            args.add(r.completed ? "completed" : "failed");
            args.add(r.completed ? r.value : Utf16.replaceLoneSurrogates(r.value));
            args.add(r.stacktrace == null ? "" : r.stacktrace);
            args.add(Integer.toString(r.keepCount));
            args.add(Long.toString(r.keepAgeMs));
            args.add(Integer.toString(r.attempts));
            args.add(r.nextToken != null ? "1" : "0");
            args.add(r.nextToken == null ? "" : r.nextToken);
            args.add(r.deadLetterBase == null ? "" : r.deadLetterBase);
        }
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, k.finishKeys(true), args.toArray(String[]::new))
                .thenApply(replies -> {
                    List<Outcome> out = new ArrayList<>(rs.size());
                    for (int i = 0; i < rs.size(); i++) {
                        MoveToFinished.Request r = rs.get(i);
                        @SuppressWarnings("unchecked")
                        List<Object> reply = (List<Object>) replies.get(i);
                        try {
                            out.add(new Outcome(MoveToFinished.parse(k, r, reply), null));
                        } catch (RuntimeException e) {
                            out.add(new Outcome(null, e));
                        }
                    }
                    return out;
                });
    }

    /** One finish's result: what it fetched, or why it was refused. */
    public record Outcome(FetchedJob next, RuntimeException error) {
    }

    /** The error a finish raised in the script, as the single call's would have reached its caller. */
    static RuntimeException scriptError(String jobId, String message) {
        return new RedisException("moveToFinished of job " + jobId + ": " + message, null, false);
    }
}
