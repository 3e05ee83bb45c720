package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Creating or replacing a job scheduler and its pending iteration (lua/addJobScheduler.lua), as BullMQ's
 * {@code upsertJobScheduler}.
 */
public final class AddJobScheduler {
    static final LuaScript SCRIPT = LuaScript.load("addJobScheduler");

    /** A cron run's job id is taken by an existing job. */
    public static final long ID_COLLISION = -10;
    /** 32 consecutive "every" slots all hold an existing job. */
    public static final long SLOTS_BUSY = -11;

    /** The scheduler hash's fields as text, "" for an absent one. */
    public static final class Definition {
        public String name = "";
        public String tz = "";
        public String limit = "";
        public String pattern = "";
        public String startDate = "";
        public String endDate = "";
        public String every = "";
        public String offset = "";
    }

    /** The pending iteration's id, delay (ms) and hash, or an error code (negative) in {@code code}. */
    public static final class Result {
        public final long code;
        public final String jobId;
        public final long delay;
        public final Map<String, String> fields;

        Result(long code, String jobId, long delay, Map<String, String> fields) {
            this.code = code;
            this.jobId = jobId;
            this.delay = delay;
            this.fields = fields;
        }
    }

    private AddJobScheduler() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.repeat(), k.meta(), k.id(), k.events(), k.delayed(), k.waitList(), k.prioritized(),
                k.priorityCounter(), k.marker(), k.active(), k.paused()};
    }

    /**
     * @param cronNext the next run for a cron scheduler, null for an every scheduler
     */
    public static CompletableFuture<Result> run(ScriptRunner runner, QueueKeys k, String schedulerId, Long cronNext,
                                                long now, Definition d, String templateData, String templateOpts,
                                                String iterationOpts) {
        return runner.<Object>run(SCRIPT, ScriptOutputType.MULTI, keys(k), k.base(), schedulerId,
                cronNext == null ? "" : Long.toString(cronNext), Long.toString(now), d.name, d.tz, d.limit,
                d.pattern, d.startDate, d.endDate, d.every, d.offset, templateData, templateOpts, iterationOpts)
                .thenApply(r -> {
                    if (r instanceof Long) {
                        return new Result((Long) r, null, 0, Map.of());
                    }
                    List<?> list = (List<?>) r;
                    if (list.size() == 1 && list.get(0) instanceof Long) {
                        return new Result((Long) list.get(0), null, 0, Map.of());
                    }
                    return new Result(0, String.valueOf(list.get(0)), (Long) list.get(1),
                            FetchedJob.pairs((List<?>) list.get(2)));
                });
    }
}
