package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The add transition (lua/addJob.lua): stores jobs in wait, prioritized or delayed, many per call. */
public final class AddJob {
    static final LuaScript SCRIPT = LuaScript.load("addJob");

    /** One job to store; {@code customId} null for an id from the queue's counter. */
    public static final class Spec {
        final String customId;
        final String name;
        final long timestamp;
        final String data;
        final String opts;
        final long delayMs;
        final int priority;
        final boolean lifo;

        public Spec(String customId, String name, long timestamp, String data, String opts, long delayMs,
                    int priority, boolean lifo) {
            this.customId = customId;
            this.name = name;
            this.timestamp = timestamp;
            this.data = data;
            this.opts = opts;
            this.delayMs = delayMs;
            this.priority = priority;
            this.lifo = lifo;
        }
    }

    /** The stored job's id, and whether it was created (false: a job with that custom id existed). */
    public static final class Result {
        public final String id;
        public final boolean created;

        Result(String id, boolean created) {
            this.id = id;
            this.created = created;
        }
    }

    private AddJob() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.meta(), k.id(), k.waitList(), k.prioritized(), k.priorityCounter(), k.delayed(),
                k.marker(), k.events(), k.active()};
    }

    public static CompletableFuture<List<Result>> run(ScriptRunner runner, QueueKeys k, List<Spec> jobs) {
        return run(runner, runner.timeout(), k, jobs);
    }

    /** Within {@code budget} rather than the command timeout. */
    public static CompletableFuture<List<Result>> run(ScriptRunner runner, java.time.Duration budget, QueueKeys k,
                                                      List<Spec> jobs) {
        List<String> args = new ArrayList<>(1 + jobs.size() * 8);
        args.add(k.base());
        for (Spec s : jobs) {
            args.add(s.customId == null ? "" : s.customId);
            args.add(s.name);
            args.add(Long.toString(s.timestamp));
            args.add(s.data);
            args.add(s.opts);
            args.add(Long.toString(s.delayMs));
            args.add(Integer.toString(s.priority));
            args.add(s.lifo ? "1" : "0");
        }
        return runner.<List<Object>>run(budget, SCRIPT, ScriptOutputType.MULTI, keys(k), args.toArray(new String[0]))
                .thenApply(r -> {
                    List<Result> out = new ArrayList<>(r.size() / 2);
                    for (int i = 0; i + 1 < r.size(); i += 2) {
                        out.add(new Result(String.valueOf(r.get(i)), ((Long) r.get(i + 1)) == 1L));
                    }
                    return out;
                });
    }
}
