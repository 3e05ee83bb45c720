package io.bull4j;

import io.bull4j.internal.script.IsFinished;
import io.bull4j.internal.script.ScriptErrors;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link Job#waitUntilFinished}: listens on a {@link QueueEvents} for the job's end, so nothing polls. The
 * listener is registered before the job's state is read, so a finish that lands between the two is still seen.
 */
final class JobFinishWaiter {
    private final QueueContext ctx;
    private final Job job;

    JobFinishWaiter(QueueContext ctx, Job job) {
        this.ctx = ctx;
        this.job = job;
    }

    /** With a reader of its own, from the stream's end before the job's state is read, closed before returning. */
    Job await(Duration timeout) {
        // read first: an end written after the state below is after this entry, even before our reader starts
        String from = QueueEvents.streamEnd(ctx.link, ctx.keys.events());
        // a job that has finished already needs no reader (nor its connection)
        IsFinished.Result now = ctx.await(IsFinished.run(ctx.scripts(), ctx.keys, job.id()), "isFinished");
        if (now.status() == IsFinished.Status.COMPLETED || now.status() == IsFinished.Status.FAILED) {
            return finished(now);
        }
        try (QueueEvents events = new QueueEvents(ctx, from)) {
            return await(events, timeout, from);
        }
    }

    Job await(QueueEvents events, Duration timeout) {
        return await(events, timeout, null);
    }

    /**
     * @param startAfter for a reader not started yet: the stream entry it is to start after once the listener is
     *     on, read before anything else of the wait, so an end written since is delivered or found there
     */
    private Job await(QueueEvents events, Duration timeout, String startAfter) {
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(timeout); // saturates: waits of years too
        CompletableFuture<QueueEvent> end = new CompletableFuture<>();
        QueueEventListener listener = e -> {
            switch (e.type()) {
                case COMPLETED: case FAILED: case REMOVED:
                    end.complete(e);
                    break;
                default:
                    break;
            }
        };
        // where the wait begins, read before the listener is on: an end after this entry is in the stream after it,
        // and reaches the listener too unless the reader was already handing it on (to a list without ours)
        String waitFrom = startAfter != null ? startAfter : events.lastEventId();
        events.onJob(job.id(), listener, () -> end.completeExceptionally(
                new Bull4jException("QueueEvents on " + ctx.name() + " closed while waiting for job " + job.id())));
        try {
            if (startAfter != null) {
                events.run(); // ours starts with the listener on
            }
            IsFinished.Result now = ctx.await(IsFinished.run(ctx.scripts(), ctx.keys, job.id()), "isFinished");
            switch (now.status()) {
                case COMPLETED: case FAILED:
                    return finished(now);
                case MISSING:
                    // it may have finished and been removed (removeOnComplete) just now: look, but do not wait
                    return outcome(end.isDone() ? waitFor(end, deadline, timeout) : endAfter(waitFrom, events));
                default:
                    QueueEvent e;
                    try {
                        e = waitFor(end, deadline, timeout);
                    } catch (WaitTimeoutException timedOut) {
                        // the end's event may have been missed (trimmed before the reader reached it, a reader
                        // that stopped): look once more before saying the job did not finish
                        IsFinished.Result last;
                        try {
                            last = ctx.await(IsFinished.run(ctx.scripts(), ctx.keys, job.id()), "isFinished");
                        } catch (RuntimeException unreachable) {
                            throw timedOut;
                        }
                        if (last.status() == IsFinished.Status.COMPLETED
                                || last.status() == IsFinished.Status.FAILED) {
                            return finished(last);
                        }
                        throw timedOut;
                    }
                    return outcome(e);
            }
        } finally {
            events.removeListener(listener);
        }
    }

    private Job finished(IsFinished.Result now) {
        if (now.status() == IsFinished.Status.FAILED) {
            throw new JobFailedException(ctx.name(), job.id(), now.fields().get("failedReason"));
        }
        return new Job(ctx, job.id(), now.fields(), null);
    }

    private QueueEvent waitFor(CompletableFuture<QueueEvent> end, long deadline, Duration timeout) {
        try {
            return end.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new WaitTimeoutException(ctx.name(), job.id(), timeout);
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Bull4jException("waitUntilFinished: interrupted", e);
        }
    }

    /** This job's end among the stream's entries after {@code cursor}, or null. */
    private QueueEvent endAfter(String cursor, QueueEvents events) {
        while (cursor != null) {
            List<QueueEvent> batch = events.readAfter(cursor);
            if (batch.isEmpty()) {
                return null;
            }
            for (QueueEvent e : batch) {
                cursor = e.id();
                QueueEvent.Type t = e.type();
                if (job.id().equals(e.jobId()) && (t == QueueEvent.Type.COMPLETED || t == QueueEvent.Type.FAILED)) {
                    return e;
                }
            }
        }
        return null;
    }

    /** The finished job for a completed event; throws for failed, removed or none. */
    private Job outcome(QueueEvent e) {
        if (e == null || e.type() == QueueEvent.Type.REMOVED) {
            throw ScriptErrors.error(-1, ctx.name(), job.id(),
                    e == null ? "waitUntilFinished" : "waitUntilFinished: the job was removed");
        }
        if (e.type() == QueueEvent.Type.FAILED) {
            throw new JobFailedException(ctx.name(), job.id(), e.failedReason());
        }
        Map<String, String> stored = ctx.await(ctx.redis().hgetall(ctx.keys.job(job.id())), "getJob");
        if (stored != null && !stored.isEmpty()) {
            return new Job(ctx, job.id(), stored, null);
        }
        // removed on completion: what we knew, with the result the event carries
        Map<String, String> fields = new HashMap<>(job.fields());
        fields.put("returnvalue", e.returnValueJson());
        return new Job(ctx, job.id(), fields, null);
    }
}
