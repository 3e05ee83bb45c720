package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Reads whether a job has finished, with its hash, in one step (lua/isFinished.lua). */
public final class IsFinished {
    static final LuaScript SCRIPT = LuaScript.load("isFinished");

    /** Where the job stands. */
    public enum Status { MISSING, RUNNING, COMPLETED, FAILED }

    /** The status, and the job's hash when it has finished (else empty). */
    public record Result(Status status, Map<String, String> fields) {
    }

    private IsFinished() {
    }

    static String[] keys(QueueKeys k, String jobId) {
        return new String[] {k.job(jobId), k.completed(), k.failed()};
    }

    public static CompletableFuture<Result> run(ScriptRunner runner, QueueKeys k, String jobId) {
        return runner.<List<Object>>run(SCRIPT, ScriptOutputType.MULTI, keys(k, jobId), jobId).thenApply(reply -> {
            long code = (Long) reply.get(0);
            Map<String, String> fields = reply.size() > 1 ? FetchedJob.pairs((List<?>) reply.get(1)) : Map.of();
            Status status = code == 1 ? Status.COMPLETED : code == 2 ? Status.FAILED
                    : code == 0 ? Status.RUNNING : Status.MISSING;
            return new Result(status, fields);
        });
    }
}
