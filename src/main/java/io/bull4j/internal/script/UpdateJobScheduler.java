package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * Adding a scheduler's next iteration when its current one was fetched (lua/updateJobScheduler.lua), as BullMQ's
 * worker does before it processes an iteration. Only the current iteration can add the next one, once.
 */
public final class UpdateJobScheduler {
    static final LuaScript SCRIPT = LuaScript.load("updateJobScheduler");

    private UpdateJobScheduler() {
    }

    static String[] keys(QueueKeys k) {
        return new String[] {k.repeat(), k.meta(), k.id(), k.events(), k.delayed(), k.waitList(), k.prioritized(),
                k.priorityCounter(), k.marker(), k.active()};
    }

    /**
     * @param cronNext the next run for a cron scheduler, null for an every scheduler (computed in the script)
     * @return the next iteration's job id, or null when none was added
     */
    public static CompletableFuture<String> run(ScriptRunner runner, QueueKeys k, String schedulerId, Long cronNext,
                                                long now, String producerId, String iterationOpts) {
        return runner.<String>run(SCRIPT, ScriptOutputType.VALUE, keys(k), k.base(), schedulerId,
                cronNext == null ? "" : Long.toString(cronNext), Long.toString(now), producerId, iterationOpts);
    }
}
