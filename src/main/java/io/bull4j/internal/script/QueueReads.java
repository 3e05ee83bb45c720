package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Read-only getters of one step each: a page of a job's logs (lua/getJobLogs.lua), counts per priority
 * (lua/getCountsPerPriority.lua). */
public final class QueueReads {
    static final LuaScript LOGS = LuaScript.load("getJobLogs");
    static final LuaScript PER_PRIORITY = LuaScript.load("getCountsPerPriority");

    /** A page of log lines and the log's length. */
    public record Logs(List<String> lines, long count) {
    }

    private QueueReads() {
    }

    public static CompletableFuture<Logs> logs(ScriptRunner runner, QueueKeys k, String jobId, long start, long end,
                                               boolean asc) {
        return runner.<List<Object>>run(LOGS, ScriptOutputType.MULTI, new String[] {k.logs(jobId)},
                Long.toString(start), Long.toString(end), asc ? "1" : "0").thenApply(reply -> {
                    List<String> lines = new ArrayList<>();
                    ((List<?>) reply.get(0)).forEach(v -> lines.add(String.valueOf(v)));
                    return new Logs(lines, (Long) reply.get(1));
                });
    }

    /** One count per priority, in the order given. */
    public static CompletableFuture<List<Long>> countsPerPriority(ScriptRunner runner, QueueKeys k,
                                                                  List<Integer> priorities) {
        return runner.<List<Object>>run(PER_PRIORITY, ScriptOutputType.MULTI,
                new String[] {k.waitList(), k.prioritized()},
                priorities.stream().map(String::valueOf).toArray(String[]::new)).thenApply(reply -> {
                    List<Long> counts = new ArrayList<>(reply.size());
                    reply.forEach(v -> counts.add((Long) v));
                    return counts;
                });
    }
}
