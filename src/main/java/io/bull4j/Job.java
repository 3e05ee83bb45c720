package io.bull4j;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.codec.OptionsCodec;
import io.bull4j.internal.script.JobData;
import io.bull4j.internal.script.MoveToDelayed;

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
    private final JobOptions opts;
    private final String token;
    private volatile BiConsumer<Job, Object> progressListener;

    Job(QueueContext ctx, String id, Map<String, String> fields, String token) {
        this.ctx = ctx;
        this.id = id;
        this.fields = Collections.unmodifiableMap(fields);
        this.opts = OptionsCodec.read(fields.get("opts"));
        this.token = token;
    }

    void onProgress(BiConsumer<Job, Object> listener) {
        this.progressListener = listener;
    }

    Map<String, String> fields() {
        return fields;
    }

    public String id() {
        return id;
    }

    public String name() {
        return fields.getOrDefault("name", "");
    }

    public String queueName() {
        return ctx.name();
    }

    /** The data as stored: a JSON text ({@code {}} when a producer stored none). */
    public String dataJson() {
        String data = fields.get("data");
        return data == null || data.isEmpty() ? "{}" : data;
    }

    /** The data as plain Java values: maps, lists, strings, numbers, booleans or null. */
    public Object data() {
        return data(Object.class);
    }

    /** The data read as {@code type} through Jackson, e.g. a record class. */
    public <T> T data(Class<T> type) {
        return Json.read(ctx.mapper, dataJson(), ctx.mapper.constructType(type));
    }

    public <T> T data(TypeReference<T> type) {
        return Json.read(ctx.mapper, dataJson(), ctx.mapper.constructType(type));
    }

    public JobOptions opts() {
        return opts;
    }

    /** The processor's return value as JSON text, or null while the job has not completed. */
    public String returnValueJson() {
        return fields.get("returnvalue");
    }

    public <T> T returnValue(Class<T> type) {
        String json = returnValueJson();
        return json == null ? null : Json.read(ctx.mapper, json, ctx.mapper.constructType(type));
    }

    /** The last progress reported (a number, or any JSON value), 0 when none was. */
    public Object progress() {
        String json = fields.get("progress");
        return json == null || json.isEmpty() ? 0 : Json.read(ctx.mapper, json, ctx.mapper.constructType(Object.class));
    }

    public String failedReason() {
        return fields.get("failedReason");
    }

    /** The stack traces of failed attempts, oldest first. */
    public List<String> stacktrace() {
        JsonNode n = Json.tree(fields.get("stacktrace"));
        List<String> out = new ArrayList<>();
        if (n != null && n.isArray()) {
            n.forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    public Instant timestamp() {
        return Instant.ofEpochMilli(longField("timestamp"));
    }

    /** When processing last started, or null. */
    public Instant processedOn() {
        return fields.containsKey("processedOn") ? Instant.ofEpochMilli(longField("processedOn")) : null;
    }

    public Instant finishedOn() {
        return fields.containsKey("finishedOn") ? Instant.ofEpochMilli(longField("finishedOn")) : null;
    }

    public Duration delay() {
        return Duration.ofMillis(longField("delay"));
    }

    public int priority() {
        return (int) longField("priority");
    }

    /** Attempts finished (failed or completed), as BullMQ's {@code attemptsMade}. */
    public int attemptsMade() {
        return (int) (fields.containsKey("atm") ? longField("atm") : longField("attemptsMade"));
    }

    public int attemptsStarted() {
        return (int) longField("ats");
    }

    public int stalledCounter() {
        return (int) longField("stc");
    }

    /** The name of the worker that last took the job, or null. */
    public String processedBy() {
        return fields.get("pb");
    }

    /** The reason a worker must fail this job without running it (e.g. stalled too often), or null. */
    public String deferredFailure() {
        return fields.get("defa");
    }

    /**
     * The lock token while a worker holds this job, else null. It changes on every fetch, so a processor can use
     * it as a fencing token for its own writes.
     */
    public String token() {
        return token;
    }

    private long longField(String name) {
        String v = fields.get(name);
        if (v == null || v.isEmpty()) {
            return 0;
        }
        try {
            return (long) Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    // ---- operations ----

    /** Stores the progress (a number or any JSON-serializable value) and emits a {@code progress} event. */
    public void updateProgress(Object progress) {
        String json = Json.write(ctx.mapper, progress, "progress");
        ctx.await(JobData.updateProgress(ctx.scripts(), ctx.keys, id, json), "updateProgress");
        BiConsumer<Job, Object> listener = progressListener;
        if (listener != null) {
            listener.accept(this, progress);
        }
    }

    /** Appends a line to the job's log (keeping the job's {@code keepLogs} newest); returns the line count. */
    public long log(String line) {
        ValidationException.check(line != null, "line", "must not be null");
        return ctx.await(JobData.addLog(ctx.scripts(), ctx.keys, id, line, opts.keepLogs()), "log");
    }

    /** Replaces the job's data. */
    public void updateData(Object data) {
        String json = Json.write(ctx.mapper, data, "data");
        ctx.await(JobData.updateData(ctx.scripts(), ctx.keys, id, json), "updateData");
    }

    /** Where the job is now (read from Redis). */
    public JobState getState() {
        return JobState.fromWireName(ctx.await(JobData.state(ctx.scripts(), ctx.keys, id), "getState"));
    }

    /** Re-reads the job from Redis; null if it no longer exists. */
    public Job refresh() {
        Map<String, String> now = ctx.await(ctx.redis().hgetall(ctx.keys.job(id)), "getJob");
        return now == null || now.isEmpty() ? null : new Job(ctx, id, now, token);
    }

    /**
     * From inside the processor: moves this active job to delayed until {@code when}, without counting a failed
     * attempt, then throws {@link DelayedException} so that the worker leaves the job there. Let it propagate.
     */
    public void moveToDelayed(Instant when) {
        ValidationException.check(when != null, "when", "must not be null");
        ValidationException.check(token != null, "token", "only the worker processing the job can delay it");
        long due = when.toEpochMilli();
        long delay = Math.max(0, due - ctx.now());
        ctx.await(MoveToDelayed.run(ctx.scripts(), ctx.keys, id, token, due, delay, null, null), "moveToDelayed");
        throw new DelayedException();
    }

    @Override
    public String toString() {
        return "Job{queue=" + ctx.name() + ", id=" + id + ", name=" + name() + "}";
    }
}
