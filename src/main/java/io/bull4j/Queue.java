package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.codec.OptionsCodec;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.script.AddJob;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The producer side of a queue: adds jobs and administers the queue. Thread-safe; share one per queue.
 *
 * <pre>{@code
 * try (Queue queue = new Queue("emails")) {     // REDIS_URL if set, else redis://localhost:6379
 *     Job job = queue.add("welcome", Map.of("to", "ana@example.com"));
 *     Map<JobState, Long> counts = queue.getJobCounts();
 *     queue.clean(Duration.ofDays(1), 0, JobState.COMPLETED);   // drop completed jobs older than a day
 * }
 * }</pre>
 *
 * <p>Every method validates its input before anything is written to Redis. {@link #close()} closes the
 * connection only when the queue opened it (no {@link QueueOptions#connection()} given).
 */
public final class Queue implements AutoCloseable {
    /** Jobs per Redis call in {@link #addBulk(List)}. */
    static final int BULK_CHUNK = 200;

    private final QueueOptions opts;
    private final QueueContext ctx;
    private final boolean ownsConnection;
    private final QueueAdmin admin;
    private final QueueLimits limits;
    private volatile boolean closed;
    private final String defaultOptsJson;

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
        this.defaultOptsJson = OptionsCodec.write(options.defaultJobOptions());
        this.admin = new QueueAdmin(ctx);
        this.limits = new QueueLimits(ctx);
        if (options.checkEvictionPolicy()) {
            ctx.link.checkEvictionPolicy();
        }
        try {
            if (!options.skipMetasUpdate()) {
                ctx.await(ctx.redis().hset(keys.meta(), Map.of("opts.maxLenEvents",
                        Integer.toString(options.maxLenEvents()), "version", "bull4j:" + Version.VALUE)), "HSET meta");
            }
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
     * Adds a job. With a {@code jobId} that exists already, nothing is added and the existing job is returned
     * (a {@code duplicated} event is emitted, as BullMQ does).
     *
     * @param data any value Jackson writes as JSON. {@code null} means "no data" and is stored as {@code {}}, as
     *     BullMQ stores an {@code undefined}; to store JSON {@code null}, pass {@code NullNode.getInstance()}
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

    /**
     * Adds many jobs; returns them in order. The jobs go out together (pipelined, no wait between calls), in
     * scripts of {@value #BULK_CHUNK} jobs each, so that no single script holds Redis for long while workers wait.
     * Each script is atomic; the bulk as a whole is not (as in BullMQ).
     */
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
        // the queue's defaults are written the same way for every add that gives no options: encode them once
        String optsJson = options == null ? defaultOptsJson : OptionsCodec.write(o);
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

    /**
     * How many jobs each state holds, in the order asked (all states but {@link JobState#PAUSED}, in BullMQ's
     * order, when none is named), as BullMQ's {@code getJobCounts}: {@link JobState#WAITING} counts the wait list,
     * {@link JobState#PAUSED} the legacy {@code paused} list of old BullMQ versions. One Redis call.
     */
    public Map<JobState, Long> getJobCounts(JobState... states) {
        checkOpen();
        return admin.counts(QueueAdmin.checkStates(states));
    }

    /** The jobs still to run, as BullMQ's {@code count()}: waiting + delayed + prioritized + waiting-children. */
    public long count() {
        checkOpen();
        return admin.counts(List.of(JobState.WAITING, JobState.DELAYED, JobState.PRIORITIZED,
                JobState.WAITING_CHILDREN)).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Snapshots of the jobs in the given states (all when empty), state after state, each job once. Per state the
     * positions {@code start..end} are taken (Redis index rules: {@code -1} is the last), newest first: the wait
     * and active lists by insertion, sorted sets by descending score (finish time, due time, priority). With
     * {@code asc} the order is reversed. Jobs removed meanwhile are skipped and a bounded page is refilled from
     * the jobs after it, as in BullMQ. {@link JobState#PAUSED} lists the legacy {@code paused} list of old BullMQ
     * versions (not listed when no state is named, as in BullMQ). One Redis call.
     */
    public List<Job> getJobs(Set<JobState> states, long start, long end, boolean asc) {
        checkOpen();
        return admin.jobs(QueueAdmin.checkStates(states), start, end, asc);
    }

    /**
     * All jobs in the given states (all states when none is named), newest first; see
     * {@link #getJobs(Set, long, long, boolean)}.
     */
    public List<Job> getJobs(JobState... states) {
        checkOpen();
        return admin.jobs(QueueAdmin.checkStates(states), 0, -1, false);
    }

    // ---- administration ----

    /**
     * Pauses the queue for every worker, bull4j's and BullMQ's: no job is taken until {@link #resume()}; jobs
     * already running finish. Adds still work. Emits {@code paused}.
     */
    public void pause() {
        checkOpen();
        admin.pause(true);
    }

    /** Ends a {@link #pause()} and wakes the workers. Emits {@code resumed}. */
    public void resume() {
        checkOpen();
        admin.pause(false);
    }

    /** Whether the queue is paused (by any client). */
    public boolean isPaused() {
        checkOpen();
        return admin.isPaused();
    }

    /**
     * Removes a job, whatever its state, with its logs and other keys, and emits {@code removed}. Returns false,
     * changing nothing, when a worker holds the job's lock, when the job is the pending run of a job scheduler,
     * or when there is no such job. Unlike BullMQ it does not remove the job's children.
     */
    public boolean remove(String jobId) {
        checkOpen();
        ValidationException.check(jobId != null && !jobId.isEmpty(), "jobId", "must not be empty");
        return admin.remove(jobId);
    }

    /**
     * Removes every job that waits to run (waiting and prioritized, and delayed too when {@code delayed}), with
     * their keys; active and finished jobs stay. Emits no events, as BullMQ.
     */
    public void drain(boolean delayed) {
        checkOpen();
        admin.drain(delayed);
    }

    /**
     * Removes the jobs of one state that are older than {@code grace}: finished jobs by their finish time, others
     * by when they last started, else when they were created. Active jobs a worker holds and the pending run of a
     * job scheduler are kept. {@link JobState#WAITING} cleans the wait list, {@link JobState#PAUSED} the legacy
     * paused list.
     * Emits {@code cleaned} with the count for each batch of up to 10000.
     *
     * @param limit at most this many jobs, 0 for no limit
     * @return the ids removed
     */
    public List<String> clean(Duration grace, int limit, JobState state) {
        checkOpen();
        ValidationException.check(grace != null && !grace.isNegative(), "grace", "must be zero or more");
        ValidationException.check(limit >= 0, "limit", "must be 0 (no limit) or more, was " + limit);
        ValidationException.check(state != null && state != JobState.UNKNOWN, "state",
                "must be a state jobs are kept in, was " + state);
        return admin.clean(grace, limit, state);
    }

    /**
     * Deletes the queue and everything in it. The queue is paused first (and stays paused if this fails).
     *
     * @param force delete active jobs too; without it a queue with active jobs is refused with a
     *              {@link Bull4jException} (after the pause)
     */
    public void obliterate(boolean force) {
        checkOpen();
        admin.obliterate(force);
    }

    /** {@link #retryJobs(JobState, int, Instant)} for all jobs finished until now, 1000 per Redis call. */
    public int retryJobs(JobState state) {
        return retryJobs(state, 1000, Instant.ofEpochMilli(ctx.now()));
    }

    /**
     * Moves completed or failed jobs back to wait (or prioritized), {@code count} per Redis call until none is
     * left, emitting {@code waiting} with {@code prev} the state they left. Their finish time, start time and
     * return value or failure are cleared; attempt counters stay, as in BullMQ.
     *
     * @param timestamp only jobs that finished at or before it
     * @return how many jobs moved
     */
    public int retryJobs(JobState state, int count, Instant timestamp) {
        checkOpen();
        ValidationException.check(state == JobState.COMPLETED || state == JobState.FAILED, "state",
                "must be COMPLETED or FAILED, was " + state);
        ValidationException.check(count > 0, "count", "must be positive, was " + count);
        ValidationException.check(timestamp != null, "timestamp", "must not be null");
        return admin.moveToWait(state.wireName(), count, Long.toString(timestamp.toEpochMilli()));
    }

    /** {@link #promoteJobs(int)} 1000 per Redis call. */
    public int promoteJobs() {
        return promoteJobs(1000);
    }

    /**
     * Moves every delayed job to wait (or prioritized) now, {@code count} per Redis call, emitting
     * {@code waiting} with {@code prev=delayed}.
     *
     * @return how many jobs moved
     */
    public int promoteJobs(int count) {
        checkOpen();
        ValidationException.check(count > 0, "count", "must be positive, was " + count);
        return admin.moveToWait("delayed", count, "+inf");
    }

    // ---- rate limits, global concurrency, deduplication (as BullMQ 6.7.0; see docs/rate-limits.md) ----
    // (the Lua of these lives in lua/include/rateLimit.lua and lua/include/deduplicate.lua)

    /**
     * Holds every worker of the queue (bull4j's and BullMQ's) for {@code duration}: no job starts until it ends.
     * Writes BullMQ's manual limit to the {@code limiter} key; with {@link RateLimitException} from a processor
     * this is how a downstream's "429, retry after" is honoured.
     */
    public void rateLimit(Duration duration) {
        checkOpen();
        limits.rateLimit(duration);
    }

    /**
     * A rate limit for all workers of the queue: at most {@code max} jobs start per {@code duration} (meta
     * {@code max}/{@code duration}). The max wins over a worker's own limiter; a worker's limiter duration wins
     * over this duration, as in BullMQ.
     */
    public void setGlobalRateLimit(int max, Duration duration) {
        checkOpen();
        limits.setGlobalRateLimit(max, duration);
    }

    /** The global rate limit, or null when none is set. */
    public RateLimit getGlobalRateLimit() {
        checkOpen();
        return limits.getGlobalRateLimit();
    }

    public void removeGlobalRateLimit() {
        checkOpen();
        limits.removeGlobalRateLimit();
    }

    /**
     * The ms left in the current rate-limit window when at least {@code maxJobs} jobs started in it, else 0. With
     * {@code maxJobs} 0 the global max is used; with no global max either, the limiter key's PTTL as Redis gives
     * it (-2: no window), as BullMQ's {@code getRateLimitTtl}.
     */
    public long getRateLimitTtl(long maxJobs) {
        checkOpen();
        return limits.rateLimitTtl(maxJobs);
    }

    /** {@link #getRateLimitTtl(long)} against the global max. */
    public long getRateLimitTtl() {
        return getRateLimitTtl(0);
    }

    /** Deletes the limiter key: the current window (or a manual {@link #rateLimit}) ends now. */
    public boolean removeRateLimitKey() {
        checkOpen();
        return limits.removeRateLimitKey();
    }

    /** At no moment more than {@code concurrency} jobs of the queue are active, over all workers. */
    public void setGlobalConcurrency(int concurrency) {
        checkOpen();
        limits.setGlobalConcurrency(concurrency);
    }

    /** The global concurrency, or null when none is set. */
    public Integer getGlobalConcurrency() {
        checkOpen();
        return limits.getGlobalConcurrency();
    }

    public void removeGlobalConcurrency() {
        checkOpen();
        limits.removeGlobalConcurrency();
    }

    /** Whether a global concurrency is set and as many jobs are active. */
    public boolean isMaxed() {
        checkOpen();
        return limits.isMaxed();
    }

    /** The id of the job that owns this deduplication id now, or null when none does. */
    public String getDeduplicationJobId(String deduplicationId) {
        checkOpen();
        return limits.deduplicationJobId(deduplicationId);
    }

    /**
     * Ends a deduplication window whatever job owns it: the next add with this id creates a job. Returns whether a
     * key was removed.
     */
    public boolean removeDeduplicationKey(String deduplicationId) {
        checkOpen();
        return limits.removeDeduplicationKey(deduplicationId);
    }

    /** BullMQ's deprecated alias of {@link #getDeduplicationJobId(String)}, kept as 6.7.0 keeps it. */
    @Deprecated
    public String getDebounceJobId(String id) {
        return getDeduplicationJobId(id);
    }

    /** BullMQ's deprecated alias of {@link #removeDeduplicationKey(String)}, kept as 6.7.0 keeps it. */
    @Deprecated
    public boolean removeDebounceKey(String id) {
        return removeDeduplicationKey(id);
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
