package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.codec.OptionsCodec;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.script.AddJob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The producer side of a queue: adds jobs and administers the queue. Thread-safe; share one per queue.
 *
 * <pre>{@code
 * try (Queue queue = new Queue("emails")) {     // REDIS_URL if set, else redis://localhost:6379
 *     Job job = queue.add("welcome", Map.of("to", "ana@example.com"));
 * }
 * }</pre>
 *
 * <p>Every method validates its input before anything is written to Redis. {@link #close()} closes the
 * connection only when the queue opened it (no {@link QueueOptions#connection()} given).
 */
public final class Queue implements AutoCloseable {
    /** Jobs per Redis call in {@link #addBulk(List)}. */
    static final int BULK_CHUNK = 1000;

    private final QueueOptions opts;
    private final QueueContext ctx;
    private final boolean ownsConnection;
    private volatile boolean closed;

    public Queue(String name) {
        this(name, QueueOptions.DEFAULTS);
    }

    public Queue(String name, QueueOptions options) {
        ValidationException.check(options != null, "options", "must not be null");
        QueueKeys keys = new QueueKeys(options.prefix(), name);
        this.opts = options;
        this.ownsConnection = options.connection() == null;
        Bull4jConnection connection = ownsConnection ? Bull4jConnection.create() : options.connection();
        this.ctx = new QueueContext(keys, connection.link(), options.objectMapper(), options.clock());
        try {
            ctx.await(ctx.redis().hset(keys.meta(), Map.of("opts.maxLenEvents",
                    Integer.toString(options.maxLenEvents()), "version", "bull4j:" + Version.VALUE)), "HSET meta");
        } catch (RuntimeException e) {
            if (ownsConnection) {
                ctx.link.close();
            }
            throw e;
        }
    }

    public String name() {
        return ctx.name();
    }

    /** {@code prefix:name}, as BullMQ names a queue in flows and dashboards. */
    public String qualifiedName() {
        return ctx.keys.qualifiedName();
    }

    public QueueOptions options() {
        return opts;
    }

    QueueContext context() {
        return ctx;
    }

    // ---- adding ----

    /** Adds a job with the queue's default options. */
    public Job add(String name, Object data) {
        return add(name, data, null);
    }

    /**
     * Adds a job. With a {@code jobId} that exists already, nothing is added and the existing job is returned.
     */
    public Job add(String name, Object data, JobOptions options) {
        return Await.result(addAsync(name, data, options), ctx.link.commandTimeout(), "add");
    }

    public CompletableFuture<Job> addAsync(String name, Object data) {
        return addAsync(name, data, null);
    }

    /** The asynchronous twin of {@link #add(String, Object, JobOptions)}; validation errors are thrown at once. */
    public CompletableFuture<Job> addAsync(String name, Object data, JobOptions options) {
        Prepared p = prepare(name, data, options);
        return AddJob.run(ctx.scripts(), ctx.keys, List.of(p.spec)).thenCompose(r -> toJob(p, r.get(0)));
    }

    /** Adds many jobs, {@value #BULK_CHUNK} per Redis call; returns them in order. */
    public List<Job> addBulk(List<BulkJob> jobs) {
        return Await.result(addBulkAsync(jobs), ctx.link.commandTimeout().multipliedBy(
                1 + (jobs == null ? 0 : jobs.size() / BULK_CHUNK)), "addBulk");
    }

    /** The asynchronous twin of {@link #addBulk(List)}; all jobs are validated before any is sent. */
    public CompletableFuture<List<Job>> addBulkAsync(List<BulkJob> jobs) {
        ValidationException.check(jobs != null, "jobs", "must not be null");
        List<Prepared> prepared = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            BulkJob j = jobs.get(i);
            ValidationException.check(j != null, "jobs[" + i + "]", "must not be null");
            prepared.add(prepare(j.name(), j.data(), j.options()));
        }
        List<CompletableFuture<List<Job>>> chunks = new ArrayList<>();
        for (int from = 0; from < prepared.size(); from += BULK_CHUNK) {
            List<Prepared> chunk = prepared.subList(from, Math.min(prepared.size(), from + BULK_CHUNK));
            List<AddJob.Spec> specs = new ArrayList<>(chunk.size());
            chunk.forEach(p -> specs.add(p.spec));
            chunks.add(AddJob.run(ctx.scripts(), ctx.keys, specs).thenCompose(results -> {
                List<CompletableFuture<Job>> made = new ArrayList<>(results.size());
                for (int i = 0; i < results.size(); i++) {
                    made.add(toJob(chunk.get(i), results.get(i)));
                }
                return CompletableFuture.allOf(made.toArray(new CompletableFuture[0]))
                        .thenApply(v -> made.stream().map(CompletableFuture::join).toList());
            }));
        }
        return CompletableFuture.allOf(chunks.toArray(new CompletableFuture[0])).thenApply(v -> {
            List<Job> all = new ArrayList<>(prepared.size());
            chunks.forEach(c -> all.addAll(c.join()));
            return all;
        });
    }

    /** A validated job, ready to send. */
    private static final class Prepared {
        AddJob.Spec spec;
        Map<String, String> fields;
    }

    private Prepared prepare(String name, Object data, JobOptions options) {
        checkOpen();
        ValidationException.check(name != null, "name", "must not be null");
        JobOptions o = options == null ? opts.defaultJobOptions() : options.withDefaults(opts.defaultJobOptions());
        String json = Json.write(ctx.mapper, data == null ? Map.of() : data, "data");
        if (o.sizeLimit() != null) {
            int size = json.getBytes(StandardCharsets.UTF_8).length;
            ValidationException.check(size <= o.sizeLimit(), "data",
                    "is " + size + " bytes of JSON, over the sizeLimit of " + o.sizeLimit());
        }
        long timestamp = o.timestamp() != null ? o.timestamp().toEpochMilli() : ctx.now();
        String optsJson = OptionsCodec.write(o);
        Prepared p = new Prepared();
        p.spec = new AddJob.Spec(o.jobId(), name, timestamp, json, optsJson, o.delay().toMillis(), o.priority(),
                o.lifo());
        p.fields = new LinkedHashMap<>();
        p.fields.put("name", name);
        p.fields.put("data", json);
        p.fields.put("opts", optsJson);
        p.fields.put("timestamp", Long.toString(timestamp));
        p.fields.put("delay", Long.toString(o.delay().toMillis()));
        p.fields.put("priority", Integer.toString(o.priority()));
        return p;
    }

    private CompletableFuture<Job> toJob(Prepared p, AddJob.Result r) {
        if (r.created) {
            return CompletableFuture.completedFuture(new Job(ctx, r.id, p.fields, null));
        }
        return ctx.redis().hgetall(ctx.keys.job(r.id)).toCompletableFuture()
                .thenApply(fields -> new Job(ctx, r.id, fields, null));
    }

    // ---- reading ----

    /** The job with this id, or null. */
    public Job getJob(String id) {
        ValidationException.check(id != null && !id.isEmpty(), "id", "must not be empty");
        Map<String, String> fields = ctx.await(ctx.redis().hgetall(ctx.keys.job(id)), "getJob");
        return fields == null || fields.isEmpty() ? null : new Job(ctx, id, fields, null);
    }

    private void checkOpen() {
        if (closed) {
            throw new Bull4jException("queue " + ctx.name() + " is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ownsConnection) {
            ctx.link.close();
        }
    }
}
