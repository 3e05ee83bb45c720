package io.bull4j;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.script.ChangeDelay;
import io.bull4j.internal.script.ChangePriority;
import io.bull4j.internal.script.FlowSteps;
import io.bull4j.internal.script.JobData;
import io.bull4j.internal.script.MoveToDelayed;
import io.bull4j.internal.script.PromoteJob;
import io.bull4j.internal.script.RemoveJob;
import io.bull4j.internal.script.ReprocessJob;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * A job: a snapshot of its Redis hash when it was read, plus operations on it. Data and results are JSON; read
 * them typed with {@link #data(Class)} and {@link #returnValue(Class)}.
 *
 * <pre>{@code
 * Worker worker = new Worker("emails", job -> {
 *     Email email = job.data(Email.class);
 *     job.updateProgress(50);
 *     return Map.of("sent", true);
 * });
 * }</pre>
 *
 * <p>The snapshot fields do not change after the read; the operations act on Redis at once. Safe to share
 * between threads. A job handed to a processor carries its lock {@link #token()}.
 */
public final class Job {
    private final QueueContext ctx;
    private final String id;
    private final Map<String, String> fields;
    /** Data and progress this object wrote (updateData, updateProgress): read instead, as BullMQ's job keeps them. */
    private volatile String writtenData;
    private volatile String writtenProgress;
    private volatile JobOptions opts; // read from the opts field on first use: many jobs are never asked
    private final String token;
    private volatile BiConsumer<Job, Object> progressListener;
    private volatile WorkerOptions workerOpts; // the worker that took the job, for manual processing; else defaults
    private volatile Cancellation cancellation = Cancellation.NEVER;

    Job(QueueContext ctx, String id, Map<String, String> fields, String token) {
        this(ctx, id, fields, token, null);
    }

    /** With options already read from the same {@code opts} field (or null to read them when needed). */
    Job(QueueContext ctx, String id, Map<String, String> fields, String token, JobOptions opts) {
        this.ctx = ctx;
        this.id = id;
        this.fields = Collections.unmodifiableMap(fields);
        this.opts = opts;
        this.token = token;
    }

    /** Marks the job as taken by a worker with these options (lock duration, retention, backoff strategy). */
    Job processedWith(WorkerOptions options) {
        this.workerOpts = options;
        return this;
    }

    private WorkerOptions workerOpts() {
        WorkerOptions o = workerOpts;
        return o != null ? o : WorkerOptions.DEFAULTS;
    }

    void attachCancellation(Cancellation c) {
        this.cancellation = c;
    }

    /**
     * {@return the cancellation of this attempt, which the processor checks, waits on or reacts to} A job read
     * outside a worker's processor gets a handle that is never cancelled. See {@link Cancellation}.
     */
    public Cancellation cancellation() {
        return cancellation;
    }

    void onProgress(BiConsumer<Job, Object> listener) {
        this.progressListener = listener;
    }

    /** The hash fields as read, with the data and progress this object wrote since: what copies of it start from. */
    Map<String, String> fields() {
        String data = writtenData;
        String progress = writtenProgress;
        if (data == null && progress == null) {
            return fields;
        }
        Map<String, String> f = new java.util.LinkedHashMap<>(fields);
        if (data != null) {
            f.put("data", data);
        }
        if (progress != null) {
            f.put("progress", progress);
        }
        return Collections.unmodifiableMap(f);
    }

    /** {@return the job's id} */
    public String id() {
        return id;
    }

    /**
     * {@return the id of the job scheduler that added this job (BullMQ's {@code repeatJobKey}), or null for a job
     * added by {@code add}}
     */
    public String repeatJobKey() {
        return fields.get("rjk");
    }

    /** {@return the job's name; empty when a producer stored none} */
    public String name() {
        return fields.getOrDefault("name", "");
    }

    /** {@return the name of the job's queue} */
    public String queueName() {
        return ctx.name();
    }

    /** {@return the data as stored: a JSON text ({@code {}} when a producer stored none)} */
    public String dataJson() {
        String written = writtenData;
        String data = written != null ? written : fields.get("data");
        return data == null || data.isEmpty() ? "{}" : data;
    }

    /** {@return the data as plain Java values: maps, lists, strings, numbers, booleans or null} */
    public Object data() {
        return data(Object.class);
    }

    /**
     * The data read as {@code type} through the queue's or worker's Jackson mapper, e.g. a record class.
     *
     * @param type the class to read it as
     * @param <T> the type of the data
     * @return the data
     * @throws Bull4jException when the JSON cannot be read as {@code type}
     */
    public <T> T data(Class<T> type) {
        return readData(ctx.mapper.constructType(type));
    }

    /**
     * The data read as a generic type through the Jackson mapper, e.g. {@code new TypeReference<List<Item>>() {}}.
     *
     * @param type the type to read it as
     * @param <T> the type of the data
     * @return the data
     * @throws Bull4jException when the JSON cannot be read as {@code type}
     */
    public <T> T data(TypeReference<T> type) {
        return readData(ctx.mapper.constructType(type));
    }

    /** Unreadable data fails with a message naming the field and the job, which is what an operator looks for. */
    private <T> T readData(com.fasterxml.jackson.databind.JavaType type) {
        return readField("data", dataJson(), type);
    }

    /** {@return the job's options as its producer stored them (options bull4j cannot read are left unset)} */
    public JobOptions opts() {
        JobOptions o = opts;
        if (o == null) {
            o = OptionsCodec.read(fields.get("opts")); // idempotent, so a race only reads twice
            opts = o;
        }
        return o;
    }

    /** {@return the processor's return value as JSON text, or null while the job has not completed} */
    public String returnValueJson() {
        return fields.get("returnvalue");
    }

    /**
     * The return value read as {@code type} through the Jackson mapper.
     *
     * @param type the class to read it as
     * @param <T> the type of the value
     * @return the value, or null while the job has not completed
     * @throws JobException (reason {@code BAD_DATA}, naming the field and the job) when the JSON cannot be read as
     *         {@code type}
     */
    public <T> T returnValue(Class<T> type) {
        return readReturnValue(ctx.mapper.constructType(type));
    }

    /**
     * The return value read as a generic type through the Jackson mapper, e.g.
     * {@code new TypeReference<List<Receipt>>() {}}.
     *
     * @param type the type to read it as
     * @param <T> the type of the value
     * @return the value, or null while the job has not completed
     * @throws JobException (reason {@code BAD_DATA}, naming the field and the job) when the JSON cannot be read as
     *         {@code type}
     */
    public <T> T returnValue(TypeReference<T> type) {
        return readReturnValue(ctx.mapper.constructType(type));
    }

    private <T> T readReturnValue(com.fasterxml.jackson.databind.JavaType type) {
        String json = returnValueJson();
        return json == null ? null : readField("returnvalue", json, type);
    }

    /**
     * The last progress reported (a number, or any JSON value as plain Java values); 0 when none was, or when
     * JSON {@code null} was (as BullMQ's {@code progress ?? 0}).
     *
     * @return the progress
     * @throws JobException (reason {@code BAD_DATA}, naming the field and the job) when the stored progress is not JSON
     */
    public Object progress() {
        String written = writtenProgress;
        String json = written != null ? written : fields.get("progress");
        Object progress = json == null || json.isEmpty() ? null
                : readField("progress", json, ctx.mapper.constructType(Object.class));
        return progress == null ? 0 : progress; // JSON null too, as BullMQ's progress ?? 0
    }

    /** A stored JSON field read as {@code type}; unreadable, a JobException naming the field and the job. */
    private <T> T readField(String field, String json, com.fasterxml.jackson.databind.JavaType type) {
        try {
            return Json.read(ctx.mapper, json, type);
        } catch (Bull4jException e) {
            throw new JobException(ctx.name(), id, JobException.Reason.BAD_DATA, "job " + id + " of queue "
                    + ctx.name() + ": field " + field + " " + e.getMessage(), e);
        }
    }

    /** {@return the message of the last failed attempt, or null} */
    public String failedReason() {
        return fields.get("failedReason");
    }

    /**
     * {@return the stack traces of failed attempts, oldest first; empty when none, or when what is stored is not a
     * JSON list}
     */
    public List<String> stacktrace() {
        JsonNode n;
        try {
            n = Json.tree(fields.get("stacktrace"));
        } catch (RuntimeException e) {
            n = null; // unreadable: none, as BullMQ's getTraces (a failure must still be recorded over it)
        }
        List<String> out = new ArrayList<>();
        if (n != null && n.isArray()) {
            n.forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    /** {@return when the job was created (its {@code timestamp} option, else the time of the add)} */
    public Instant timestamp() {
        return Instant.ofEpochMilli(longField("timestamp"));
    }

    /** {@return when processing last started, or null} */
    public Instant processedOn() {
        return fields.containsKey("processedOn") ? Instant.ofEpochMilli(longField("processedOn")) : null;
    }

    /** {@return when the job completed or failed for good, or null} */
    public Instant finishedOn() {
        return fields.containsKey("finishedOn") ? Instant.ofEpochMilli(longField("finishedOn")) : null;
    }

    /** {@return the job's delay, as stored; zero when none} */
    public Duration delay() {
        return Duration.ofMillis(longField("delay"));
    }

    /** {@return the job's priority; 0 for none} */
    public int priority() {
        return (int) longField("priority");
    }

    /** {@return the attempts finished (failed or completed), as BullMQ's {@code attemptsMade}} */
    public int attemptsMade() {
        return (int) (fields.containsKey("atm") ? longField("atm") : longField("attemptsMade"));
    }

    /** {@return the attempts started, as BullMQ's {@code attemptsStarted}} */
    public int attemptsStarted() {
        return (int) longField("ats");
    }

    /** {@return how many times the job stalled (its lock expired while it was active)} */
    public int stalledCounter() {
        return (int) longField("stc");
    }

    /** {@return the name of the worker that last took the job, or null} */
    public String processedBy() {
        return fields.get("pb");
    }

    /** {@return the deduplication id the job was added with ({@code deid}), or null} */
    public String deduplicationId() {
        String deid = fields.get("deid");
        if (deid != null) {
            return deid;
        }
        Deduplication d = opts().deduplication();
        return d == null ? null : d.id();
    }

    /**
     * Ends this job's deduplication window, only if the job still owns it: a newer job's window is kept.
     *
     * @return whether a key was removed
     */
    public boolean removeDeduplicationKey() {
        String dedupId = deduplicationId();
        if (dedupId == null) {
            return false;
        }
        return ctx.await(io.bull4j.internal.script.RemoveDeduplicationKey.run(ctx.scripts(), ctx.keys, dedupId, id),
                "removeDeduplicationKey");
    }

    /**
     * {@return for a dead letter (a copy of a job that failed for good, in a dead-letter queue), where it came from
     * and why it failed; null for any other job} See {@link WorkerOptions.Builder#deadLetterQueue}.
     */
    public DeadLetter deadLetter() {
        return DeadLetter.parse(fields.get("deadLetter"));
    }

    /** {@return the reason a worker must fail this job without running it (e.g. stalled too often), or null} */
    public String deferredFailure() {
        return fields.get("defa");
    }

    /**
     * {@return the lock token while a worker holds this job, else null} It changes on every fetch, so a processor can
     * use it as a fencing token for its own writes.
     */
    public String token() {
        return token;
    }

    private long longField(String name) {
        return StoredNumbers.orZero(fields.get(name));
    }

    // ---- operations ----

    /**
     * Stores the progress and emits a {@code progress} event (and {@link WorkerListener#onProgress}).
     *
     * @param progress a number or any JSON-serializable value
     * @throws ValidationException when it cannot be serialized
     */
    public void updateProgress(Object progress) {
        String json = Json.write(ctx.mapper, progress, "progress");
        ctx.await(JobData.updateProgress(ctx.scripts(), ctx.keys, id, json), "updateProgress");
        writtenProgress = json;
        BiConsumer<Job, Object> listener = progressListener;
        if (listener != null) {
            listener.accept(this, progress);
        }
    }

    /**
     * Appends a line to the job's log, keeping the job's {@code keepLogs} newest.
     *
     * @param line the line; not null
     * @return the number of lines in the log
     */
    public long log(String line) {
        ValidationException.check(line != null, "line", "must not be null");
        return ctx.await(JobData.addLog(ctx.scripts(), ctx.keys, id, line, opts().keepLogs()), "log");
    }

    /**
     * Empties the job's log, or keeps only its newest lines, as BullMQ's {@code job.clearLogs}.
     *
     * @param keepLogs the newest lines to keep; 0 deletes the log
     * @return the number of lines left
     * @throws ValidationException when {@code keepLogs} is negative
     */
    public long clearLogs(int keepLogs) {
        ValidationException.check(keepLogs >= 0, "keepLogs", "must be >= 0 (was " + keepLogs + ")");
        return ctx.await(JobData.clearLogs(ctx.scripts(), ctx.keys, id, keepLogs), "clearLogs");
    }

    /**
     * Replaces the job's data. This object's {@code data} methods then read the new data, as BullMQ's
     * {@code job.data} does after {@code updateData}; its other fields stay as read ({@link #refresh()} reads all).
     *
     * @param data the new data, serialized to JSON with the mapper
     * @throws ValidationException when it cannot be serialized
     */
    public void updateData(Object data) {
        String json = Json.write(ctx.mapper, data, "data");
        ctx.await(JobData.updateData(ctx.scripts(), ctx.keys, id, json), "updateData");
        writtenData = json;
    }

    /** {@return where the job is now, read from Redis; {@link JobState#UNKNOWN} when it no longer exists} */
    public JobState getState() {
        return JobState.fromWireName(ctx.await(JobData.state(ctx.scripts(), ctx.keys, id), "getState"));
    }

    /** {@return the job as Redis holds it now, or null if it no longer exists} */
    public Job refresh() {
        Map<String, String> now = ctx.await(ctx.redis().hgetall(ctx.keys.job(id)), "getJob");
        return now == null || now.isEmpty() ? null : new Job(ctx, id, now, token);
    }

    /**
     * From inside the processor: moves this active job to delayed until {@code when}, without counting a failed
     * attempt, then throws {@link DelayedException} so that the worker leaves the job there. Let it propagate.
     *
     * @param when when the job is due again
     * @throws DelayedException always, once the job is moved
     * @throws JobException when this worker no longer holds the job's lock
     */
    public void moveToDelayed(Instant when) {
        ValidationException.check(when != null, "when", "must not be null");
        ValidationException.check(token != null, "token", "only the worker processing the job can delay it");
        ValidationException.check(!when.isAfter(Instant.ofEpochMilli(JobOptions.MAX_DUE_MS)), "when",
                "must be at most " + Instant.ofEpochMilli(JobOptions.MAX_DUE_MS) + " (was " + when + ")");
        long due = when.isBefore(java.time.Instant.EPOCH) ? 0 : when.toEpochMilli(); // a past time: due now
        long delay = Math.max(0, due - ctx.now());
        ctx.await(MoveToDelayed.run(ctx.scripts(), ctx.keys, id, token, due, delay, null, null), "moveToDelayed");
        throw new DelayedException();
    }

    /**
     * Removes the job from whatever state holds it, with its logs and other sub-keys, and emits {@code removed}.
     * A flow parent's children (in any queue) are removed too, as in BullMQ; a child is unlinked from its parent.
     *
     * @return false, and nothing changes, when a worker holds the job's lock (or a pending child's) or the job is
     *     the pending run of a job scheduler; also false when the job no longer exists
     */
    public boolean remove() {
        return remove(true);
    }

    /**
     * Removes this job, as {@link #remove()}, choosing whether a flow parent's children go too (BullMQ's
     * {@code removeChildren}). A child is always unlinked from its parent, which is released when it was the
     * last pending child.
     *
     * @param removeChildren true to remove the children (in any queue) too; refused when a pending one is locked
     * @return whether the job was removed
     * @throws RedisException when Redis fails
     */
    public boolean remove(boolean removeChildren) {
        return ctx.await(RemoveJob.run(ctx.scripts(), ctx.keys, id, removeChildren), "remove");
    }

    /** Runs a failed job again: {@link #retry(JobState) retry(JobState.FAILED)}. */
    public void retry() {
        retry(JobState.FAILED);
    }

    /**
     * Puts a finished job back in line to run again, as BullMQ's {@code job.retry(state)}: it leaves the completed
     * or failed set for wait (or prioritized, by its priority), loses {@code finishedOn}, {@code processedOn} and
     * its return value or failed reason, and {@code waiting} is emitted with {@code prev} = the state. The attempt
     * counters are kept. This snapshot does not change; {@link #refresh()} reads the new one.
     *
     * @param state {@link JobState#COMPLETED} or {@link JobState#FAILED}: where the job must be
     * @throws JobException {@code NOT_IN_STATE} when the job is not in {@code state}, {@code JOB_NOT_FOUND} when
     *     it no longer exists
     */
    public void retry(JobState state) {
        retry(state, false, false);
    }

    /**
     * As {@link #retry(JobState)}, optionally resetting {@link #attemptsMade()} and {@link #attemptsStarted()} to
     * 0 (BullMQ's {@code resetAttemptsMade} and {@code resetAttemptsStarted}), so the job gets all its attempts
     * again.
     *
     * @param state {@link JobState#COMPLETED} or {@link JobState#FAILED}: where the job must be
     * @param resetAttemptsMade whether {@link #attemptsMade()} starts again from 0
     * @param resetAttemptsStarted whether {@link #attemptsStarted()} starts again from 0
     * @throws JobException {@code NOT_IN_STATE} when the job is not in {@code state}, {@code JOB_NOT_FOUND} when
     *     it no longer exists
     */
    public void retry(JobState state, boolean resetAttemptsMade, boolean resetAttemptsStarted) {
        ValidationException.check(state == JobState.COMPLETED || state == JobState.FAILED, "state",
                "must be COMPLETED or FAILED (was " + state + ")");
        ctx.await(ReprocessJob.run(ctx.scripts(), ctx.keys, id, state == JobState.FAILED, opts().lifo(),
                resetAttemptsMade, resetAttemptsStarted), "retry");
    }

    /**
     * Makes a delayed job ready now: it joins the back of wait (or of its priority in prioritized), its
     * {@code delay} becomes 0 and {@code waiting} is emitted with {@code prev} = {@code delayed}.
     *
     * @throws JobException {@code NOT_IN_STATE} when the job is not delayed, {@code JOB_NOT_FOUND} when it no
     *     longer exists
     */
    public void promote() {
        ctx.await(PromoteJob.run(ctx.scripts(), ctx.keys, id), "promote");
    }

    /**
     * Reschedules a delayed job to run {@code delay} from now (not from when it was added). Its {@code delay}
     * field becomes {@code delay} and {@code delayed} is emitted with the new due time.
     *
     * @param delay zero or more; zero makes the job due at once (a worker takes it on its next fetch)
     * @throws JobException {@code NOT_IN_STATE} when the job is not delayed, {@code JOB_NOT_FOUND} when it no
     *     longer exists
     */
    public void changeDelay(Duration delay) {
        ValidationException.check(delay != null, "delay", "must not be null");
        ValidationException.check(!delay.isNegative(), "delay", "must not be negative (was " + delay + ")");
        ValidationException.check(delay.compareTo(JobOptions.MAX_DELAY) <= 0, "delay", "must be at most "
                + JobOptions.MAX_DELAY.toMillis() + " ms (was " + delay + ")");
        JobOptions.checkDue(ctx.now(), delay, "delay");
        ctx.await(ChangeDelay.run(ctx.scripts(), ctx.keys, id, delay.toMillis(), ctx.now()), "changeDelay");
    }

    /**
     * {@link #changePriority(int, boolean) changePriority(priority, false)}.
     *
     * @param priority 0 to {@value JobOptions#MAX_PRIORITY}
     * @throws JobException {@code JOB_NOT_FOUND} when the job no longer exists
     */
    public void changePriority(int priority) {
        changePriority(priority, false);
    }

    /**
     * Sets the job's priority (0 = none, else 1 is the highest). A job still waiting to run moves to the back of
     * its new priority's line (wait for 0, prioritized otherwise), or to the front with {@code lifo}. A job in any
     * other state only gets the new value, used when it next becomes ready. No event is emitted, as in BullMQ.
     *
     * @param priority 0 to {@value JobOptions#MAX_PRIORITY}
     * @param lifo whether a waiting job goes to the front of its line instead of the back
     * @throws JobException {@code JOB_NOT_FOUND} when the job no longer exists
     */
    public void changePriority(int priority, boolean lifo) {
        ValidationException.check(priority >= 0 && priority <= JobOptions.MAX_PRIORITY, "priority",
                "must be between 0 and " + JobOptions.MAX_PRIORITY + " (was " + priority + ")");
        ctx.await(ChangePriority.run(ctx.scripts(), ctx.keys, id, priority, lifo), "changePriority");
    }

    /**
     * From inside the processor: extends this job's lock to {@code duration} from now, for a step that may
     * outlast the worker's automatic renewal. It also clears the job from the stalled check's candidates.
     *
     * @param duration how long the lock lives from now; at least 1 ms
     * @throws JobException {@code LOCK_MISSING} when the lock has expired, {@code LOCK_MISMATCH} when another
     *     worker holds it: either way this processor no longer owns the job
     */
    public void extendLock(Duration duration) {
        ValidationException.checkAtLeastOneMs(duration, "duration");
        ValidationException.checkExpiry(duration, "duration");
        ValidationException.check(token != null, "token", "only the worker processing the job can extend its lock");
        ManualJobs.extendLock(ctx, id, token, duration);
    }

    // ---- manual processing (BullMQ's names; the caller owns the lock and its renewal) ----

    /**
     * Manual processing: completes this active job held under {@code token} (from
     * {@link Worker#getNextJob(String, boolean)}), storing {@code returnValue} as JSON, as BullMQ's
     * {@code job.moveToCompleted(returnValue, token, fetchNext)}. With {@code fetchNext}, the next job is taken and
     * locked under the same token in the same call.
     *
     * <pre>{@code
     * for (Job job = worker.getNextJob(token, true); job != null; ) {
     *     job = job.moveToCompleted(handle(job), token, true);
     * }
     * }</pre>
     *
     * @param returnValue the result, serialized with the mapper; may be null
     * @param token the token the job was taken with
     * @param fetchNext whether to take the next job in the same call
     * @return the next job, locked under {@code token}, or null (none ready, or not asked for)
     * @throws JobException {@code LOCK_MISSING} when the lock expired, {@code LOCK_MISMATCH} when another token
     *     holds it, {@code NOT_IN_STATE} when the job is no longer active: nothing is written then
     * @throws ValidationException when the token is empty or the value cannot be serialized
     */
    public Job moveToCompleted(Object returnValue, String token, boolean fetchNext) {
        return ManualJobs.complete(ctx, workerOpts(), this, returnValue, token, fetchNext);
    }

    /**
     * Manual processing: records a failed attempt of this active job held under {@code token}, as BullMQ's
     * {@code job.moveToFailed(error, token, fetchNext)}: with attempts left (and not an
     * {@link UnrecoverableException}) the job is retried, at once or after its backoff (counted as an attempt,
     * the failed reason and stack trace stored); else it fails for good. {@code fetchNext} takes the next job on a
     * final failure and on a retry after a backoff, not on an immediate retry, as BullMQ does.
     *
     * @param error the failure; its message is the failed reason
     * @param token the token the job was taken with
     * @param fetchNext whether to take the next job (on a final failure or a retry after a backoff)
     * @return the next job, locked under {@code token}, or null
     * @throws JobException {@code LOCK_MISSING}, {@code LOCK_MISMATCH} or {@code NOT_IN_STATE} when the caller no
     *     longer holds the job: nothing is written then
     */
    public Job moveToFailed(Throwable error, String token, boolean fetchNext) {
        return ManualJobs.fail(ctx, workerOpts(), this, error, token, fetchNext);
    }

    /**
     * Manual processing: moves this active job held under {@code token} to delayed until {@code when}, without
     * counting an attempt, as BullMQ's {@code job.moveToDelayed(timestamp, token)}. Unlike
     * {@link #moveToDelayed(Instant)} it throws nothing once done.
     *
     * @param when when the job is due again; a past time makes it due at once
     * @param token the token the job was taken with
     * @throws JobException when the caller no longer holds the job
     */
    public void moveToDelayed(Instant when, String token) {
        ManualJobs.delay(ctx, this, when, token);
    }

    /**
     * Manual processing: gives this active job held under {@code token} back to wait without spending an attempt
     * (its start stays counted), as BullMQ's {@code job.moveToWait(token)}.
     *
     * @param token the token the job was taken with
     * @return how long the queue's rate limit still holds ({@link Duration#ZERO} when none)
     * @throws JobException when the caller no longer holds the job
     */
    public Duration moveToWait(String token) {
        return ManualJobs.toWait(ctx, this, token);
    }

    /**
     * Manual processing: extends the lock held under {@code token} to {@code duration} from now, as BullMQ's
     * {@code job.extendLock(token, duration)}. A job taken by hand is never renewed by the worker: call this more
     * often than the lock duration.
     *
     * @param token the token the job was taken with
     * @param duration how long the lock lives from now; at least 1 ms
     * @throws JobException {@code LOCK_MISSING} when the lock has expired, {@code LOCK_MISMATCH} when another
     *     token holds it
     */
    public void extendLock(String token, Duration duration) {
        ManualJobs.extendLock(ctx, id, token, duration);
    }

    /**
     * Blocks until the job has completed or failed, and returns it as stored then. It follows the queue's events
     * stream on a Redis connection of its own (opened for this call, closed before it returns), so nothing polls.
     * A job that finished already returns at once. A job removed on completion ({@code removeOnComplete}) during
     * the call is returned as this snapshot plus the return value the {@code completed} event carried; one removed
     * before the call began is gone, and not found (as in BullMQ).
     *
     * @param timeout how long to wait at most
     * @return the job as stored when it finished
     * @throws JobFailedException when the job failed (for good: retries are not failures), with its reason
     * @throws WaitTimeoutException when it did not finish within {@code timeout}
     * @throws JobException {@code JOB_NOT_FOUND} when the job does not exist or is removed while waited for
     */
    public Job waitUntilFinished(Duration timeout) {
        ValidationException.checkAtLeastOneMs(timeout, "timeout");
        return new JobFinishWaiter(ctx, this).await(timeout);
    }

    /**
     * As {@link #waitUntilFinished(Duration)}, but listening on a running {@link QueueEvents} of this job's queue
     * instead of opening a reader per call: the way to wait for many jobs at once.
     *
     * <pre>{@code
     * try (QueueEvents events = new QueueEvents("emails", eventsOptions)) {
     *     for (Job job : queue.addBulk(batch)) {
     *         results.add(job.waitUntilFinished(events, Duration.ofMinutes(1)));
     *     }
     * }
     * }</pre>
     *
     * @param events a reader of this job's queue, not closed
     * @param timeout how long to wait at most
     * @return the job as stored when it finished
     * @throws JobFailedException when the job failed (for good), with its reason
     * @throws WaitTimeoutException when it did not finish within {@code timeout}
     * @throws JobException {@code JOB_NOT_FOUND} when the job does not exist or is removed while waited for
     * @throws Bull4jException when {@code events} is closed while waiting
     */
    public Job waitUntilFinished(QueueEvents events, Duration timeout) {
        ValidationException.check(events != null, "queueEvents", "must not be null");
        ValidationException.check(events.keys().qualifiedName().equals(ctx.keys.qualifiedName()), "queueEvents",
                "reads " + events.keys().qualifiedName() + ", not this job's queue " + ctx.keys.qualifiedName());
        ValidationException.check(!events.isClosed(), "queueEvents", "is closed");
        ValidationException.checkAtLeastOneMs(timeout, "timeout");
        if (events.isReaderThread()) {
            // called from one of its listeners: that reader cannot deliver the end while we block its thread
            return new JobFinishWaiter(ctx, this).await(timeout);
        }
        return new JobFinishWaiter(ctx, this).await(events, timeout);
    }

    // ---- flows (see FlowProducer) ----

    /** {@return the job's queue as {@code prefix:name}, what a {@link ParentRef} to this job names} */
    public String queueQualifiedName() {
        return ctx.keys.qualifiedName();
    }

    /**
     * The step pattern of flows: while this job (being processed, with its {@link #token()}) has children pending,
     * it leaves active for {@code waiting-children}, and this method throws {@link WaitingChildrenException}, which
     * the processor must let propagate; the job runs again once its children are done. When no child is pending it
     * returns false and the job carries on.
     *
     * <pre>{@code
     * Worker worker = new Worker("orders", job -> {
     *     if (job.getDependenciesCount().processed() == 0) {
     *         flows.add(FlowJob.builder("charge", "payments").data(job.data())
     *                 .parent(ParentRef.of(job.id(), job.queueQualifiedName())).build());
     *         job.moveToWaitingChildren();   // throws WaitingChildrenException
     *     }
     *     return job.getChildrenValues();
     * });
     * }</pre>
     *
     * @return false when nothing is pending (the job stays active)
     * @throws WaitingChildrenException when the job was moved; let it propagate
     * @throws ValidationException when the job is not held by this worker (no token)
     * @throws JobException when the lock is lost (reasons LOCK_*), or a child with failParentOnFailure failed it
     *         (reason FAILED_CHILDREN)
     */
    public boolean moveToWaitingChildren() {
        return moveToWaitingChildren(null);
    }

    /**
     * As {@link #moveToWaitingChildren()}, waiting only while the one child named is pending.
     *
     * @param childKey the child's job key {@code prefix:queue:id}, or null for any child
     * @return false when that child is not pending (the job stays active)
     * @throws WaitingChildrenException when the job was moved; let it propagate
     * @throws ValidationException when the job is not held by this worker (no token)
     * @throws JobException when the lock is lost, or a child failed it (reason FAILED_CHILDREN)
     */
    public boolean moveToWaitingChildren(String childKey) {
        ValidationException.check(token != null, "token", "only the worker processing the job can move it");
        if (ctx.await(FlowSteps.moveToWaitingChildren(ctx.scripts(), ctx.keys, id, token, ctx.now(), childKey),
                "moveToWaitingChildren")) {
            throw new WaitingChildrenException();
        }
        return false;
    }

    /**
     * Unlinks this job from its parent: the parent no longer waits for it (and runs when it was the last pending
     * child). BullMQ's {@code removeChildDependency}.
     *
     * @return true when unlinked, false when this job was not pending for its parent
     * @throws JobException when this job (JOB_NOT_FOUND) or its parent does not exist
     * @throws RedisException when Redis fails
     */
    public boolean removeChildDependency() {
        return ctx.await(FlowSteps.removeChildDependency(ctx.scripts(), ctx.keys, id), "removeChildDependency");
    }

    /**
     * Removes this parent's children that have not been processed: the pending ones and, down the tree, their
     * pending children, in any queue, except those a worker holds (and failed ones). Completed children and their
     * values stay. BullMQ's {@code removeUnprocessedChildren}; the parent is released when no child is pending.
     *
     * @throws RedisException when Redis fails
     */
    public void removeUnprocessedChildren() {
        ctx.await(FlowSteps.removeUnprocessedChildren(ctx.scripts(), ctx.keys, id), "removeUnprocessedChildren");
    }

    /** {@return the parent's job key {@code prefix:queue:id}, or null for a job without parent} */
    public String parentKey() {
        return fields.get("parentKey");
    }

    /** {@return the parent of this job in a flow, or null for a job without parent} */
    public ParentRef parent() {
        String json = fields.get("parent");
        if (json != null) {
            try {
                JsonNode n = Json.tree(json);
                if (n != null && n.hasNonNull("id") && n.hasNonNull("queueKey")) {
                    return ParentRef.of(n.get("id").asText(), n.get("queueKey").asText());
                }
            } catch (RuntimeException e) {
                // fall back on parentKey below
            }
        }
        String key = parentKey();
        int first = key == null ? -1 : key.indexOf(':');
        int second = first < 0 ? -1 : key.indexOf(':', first + 1);
        return second < 0 ? null : ParentRef.of(key.substring(second + 1), key.substring(0, second));
    }

    /**
     * The return values of this job's completed children, by child key ({@code prefix:queue:id}), read as plain
     * Java values (maps, lists, strings, numbers) like {@link #data()}.
     *
     * @return the values, empty when no child completed
     * @throws JobException (reason {@code BAD_DATA}) when a stored value is not JSON
     * @throws RedisException when Redis fails
     */
    public Map<String, Object> getChildrenValues() {
        return FlowReader.childrenValues(ctx, id, ctx.mapper.constructType(Object.class));
    }

    /**
     * The return values of this job's completed children, by child key, read as {@code type} through the Jackson
     * mapper, as {@link #returnValue(Class)} does.
     *
     * @param type the class to read each value as
     * @param <T> the type of the values
     * @return the values, empty when no child completed
     * @throws JobException (reason {@code BAD_DATA}, naming the child) when a value cannot be read as {@code type}
     * @throws RedisException when Redis fails
     */
    public <T> Map<String, T> getChildrenValues(Class<T> type) {
        return FlowReader.childrenValues(ctx, id, ctx.mapper.constructType(type));
    }

    /**
     * The failed reasons of children whose failure was ignored (ignoreDependencyOnFailure) or let this job go on
     * (continueParentOnFailure), by child key.
     *
     * @return the reasons, empty when there are none
     * @throws RedisException when Redis fails
     */
    public Map<String, String> getIgnoredChildrenFailures() {
        return FlowReader.ignoredFailures(ctx, id);
    }

    /**
     * The same as {@link #getIgnoredChildrenFailures()}, under BullMQ's older name.
     *
     * @return the reasons, empty when there are none
     * @throws RedisException when Redis fails
     */
    public Map<String, String> getFailedChildrenValues() {
        return getIgnoredChildrenFailures();
    }

    /**
     * This job's children by outcome: completed (with values), pending, ignored failures, failures.
     *
     * @return the children
     * @throws RedisException when Redis fails
     */
    public JobDependencies getDependencies() {
        return FlowReader.dependencies(ctx, id, -1);
    }

    /**
     * How many children this job has of each kind.
     *
     * @return the counts
     * @throws RedisException when Redis fails
     */
    public JobDependencies.Counts getDependenciesCount() {
        return FlowReader.counts(ctx, id);
    }

    @Override
    public String toString() {
        return "Job{queue=" + ctx.name() + ", id=" + id + ", name=" + name() + "}";
    }
}
