package io.bull4j;

import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.DedicatedConnection;
import io.bull4j.internal.script.IsFinished;
import io.bull4j.internal.script.ScriptErrors;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@link Job#waitUntilFinished(Duration)}: follows the queue's events stream with {@code XREAD BLOCK} on a
 * connection of its own, so there is no polling. The stream position is read before the job's state, so a finish
 * that lands between the two reads is still found in the stream.
 */
final class JobFinishWaiter {
    /** One blocking read at most this long, as BullMQ's QueueEvents, to stay clear of client-side timeouts. */
    private static final long MAX_BLOCK_MS = 10_000;
    private static final int BATCH = 500;

    private final QueueContext ctx;
    private final Job job;

    JobFinishWaiter(QueueContext ctx, Job job) {
        this.ctx = ctx;
        this.job = job;
    }

    Job await(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String events = ctx.keys.events();
        List<StreamMessage<String, String>> last = ctx.await(
                ctx.redis().xrevrange(events, Range.create("-", "+"), Limit.from(1)), "XREVRANGE");
        String cursor = last == null || last.isEmpty() ? "0-0" : last.get(0).getId();
        IsFinished.Result now = ctx.await(IsFinished.run(ctx.scripts(), ctx.keys, job.id()), "isFinished");
        switch (now.status()) {
            case COMPLETED:
                return new Job(ctx, job.id(), now.fields(), null);
            case FAILED:
                throw new JobFailedException(ctx.name(), job.id(), now.fields().get("failedReason"));
            default:
                break;
        }
        // a missing job may have finished and been removed (removeOnComplete) just now: look, but do not wait
        boolean block = now.status() != IsFinished.Status.MISSING;
        DedicatedConnection conn = null;
        try {
            while (true) {
                long blockMs = 0;
                if (block) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        throw new WaitTimeoutException(ctx.name(), job.id(), timeout);
                    }
                    blockMs = Math.min(left, MAX_BLOCK_MS);
                    if (conn == null) {
                        conn = ctx.link.openDedicated(null);
                    }
                }
                XReadArgs args = XReadArgs.Builder.count(BATCH);
                if (block) {
                    args.block(blockMs);
                }
                XReadArgs.StreamOffset<String> from = XReadArgs.StreamOffset.from(events, cursor);
                List<StreamMessage<String, String>> batch = Await.result(
                        (block ? conn.commands() : ctx.redis()).xread(args, from),
                        Duration.ofMillis(blockMs).plus(ctx.link.commandTimeout()), "XREAD");
                if (batch == null || batch.isEmpty()) {
                    if (!block) {
                        throw ScriptErrors.error(-1, ctx.name(), job.id(), "waitUntilFinished");
                    }
                    continue;
                }
                for (StreamMessage<String, String> entry : batch) {
                    cursor = entry.getId();
                    Job done = outcome(entry.getBody());
                    if (done != null) {
                        return done;
                    }
                }
            }
        } finally {
            if (conn != null) {
                conn.close();
            }
        }
    }

    /** The finished job for a completed entry about this job; throws for failed or removed; else null. */
    private Job outcome(Map<String, String> entry) {
        if (!job.id().equals(entry.get("jobId"))) {
            return null;
        }
        switch (String.valueOf(entry.get("event"))) {
            case "completed":
                Map<String, String> stored = ctx.await(ctx.redis().hgetall(ctx.keys.job(job.id())), "getJob");
                if (stored != null && !stored.isEmpty()) {
                    return new Job(ctx, job.id(), stored, null);
                }
                // removed on completion: what we knew, with the result the event carries
                Map<String, String> fields = new HashMap<>(job.fields());
                fields.put("returnvalue", entry.get("returnvalue"));
                return new Job(ctx, job.id(), fields, null);
            case "failed":
                throw new JobFailedException(ctx.name(), job.id(), entry.get("failedReason"));
            case "removed":
                throw ScriptErrors.error(-1, ctx.name(), job.id(), "waitUntilFinished: the job was removed");
            default:
                return null;
        }
    }
}
