package io.bull4j.internal.script;

import io.bull4j.internal.codec.Utf16;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The finish transition (lua/moveToFinished.lua): completes or fails an active job for its lock owner, trims
 * finished jobs by count and age, writes the events, and may take the next job in the same round trip.
 */
public final class MoveToFinished {
    static final LuaScript SCRIPT = LuaScript.load("moveToFinished");

    /** The arguments of one call; {@code nextToken} null means do not fetch the next job. */
    public static final class Request {
        public String jobId;
        public String token;
        public long now;
        public boolean completed;
        /** The return value as JSON, or the failed reason as plain text. */
        public String value;
        /** JSON array, or null to leave the stored one. */
        public String stacktrace;
        public int keepCount = -1;
        /** -1: any age. */
        public long keepAgeMs = -1;
        public int attempts;
        public String nextToken;
        public long lockMs;
        public String workerName;
        /** The worker's rate limiter for the next fetch; 0 when it has none. */
        public long limiterMax;
        public long limiterDurationMs;
        /** The worker's metrics size (BullMQ's maxDataPoints); 0 when it collects no metrics. */
        public int metricsMaxDataPoints;
        /** A failure's dead-letter queue (its key base), or null for none; bull4j only. */
        public String deadLetterBase;
    }

    private MoveToFinished() {
    }

    static String[] keys(QueueKeys k, boolean completed) {
        return k.finishKeys(completed);
    }

    public static CompletableFuture<FetchedJob> run(ScriptRunner runner, QueueKeys k, Request r) {
        // the layout of moveManyToFinished's arguments with one job (lua/moveToFinished.lua)
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k, r.completed), k.base(),
                Long.toString(r.lockMs), r.workerName == null ? "" : r.workerName,
                MoveToActive.limiterArg(r.limiterMax), MoveToActive.limiterArg(r.limiterDurationMs),
                r.metricsMaxDataPoints > 0 ? Integer.toString(r.metricsMaxDataPoints) : "", k.name(),
                r.jobId, r.token, Long.toString(r.now), r.completed ? "completed" : "failed",
                // a failed reason goes as BullMQ sends it: a plain string argument, lone surrogates as U+FFFD
                r.completed ? r.value : Utf16.replaceLoneSurrogates(r.value),
                r.stacktrace == null ? "" : r.stacktrace, Integer.toString(r.keepCount),
                Long.toString(r.keepAgeMs), Integer.toString(r.attempts), r.nextToken != null ? "1" : "0",
                r.nextToken == null ? "" : r.nextToken, r.deadLetterBase == null ? "" : r.deadLetterBase)
                .thenApply(reply -> parse(k, r, reply));
    }

    /** One finish's reply: what it fetched, or its refusal as the exception the single call throws. */
    static FetchedJob parse(QueueKeys k, Request r, List<Object> reply) {
        if (reply.size() == 1) {
            long code = (Long) reply.get(0);
            // every refusal names the command as BullMQ's do, completion or failure alike ("Missing lock for job 1.
            // moveToFinished", "... Cmd moveToFinished from active"); a flow parent's become failed reasons
            throw ScriptErrors.error(code, k.name(), r.jobId, "moveToFinished");
        }
        if (reply.size() == 2 && reply.get(0) instanceof Long code && code == -99) {
            throw MoveManyToFinished.scriptError(r.jobId, String.valueOf(reply.get(1)));
        }
        return FetchedJob.parse(reply);
    }
}
