package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.Await;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
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
    private static final Logger log = LoggerFactory.getLogger(Queue.class);
    private final QueueOptions opts;
    private final QueueContext ctx;
    private final boolean ownsConnection;
    private final QueueAdmin admin;
    private final QueueLimits limits;
    private final JobSchedulers schedulers;
    private final QueueInsights insights;
    private final JobAdds adds;
    private volatile boolean closed;

    /**
     * A queue on a connection of its own, from {@code REDIS_URL} (else {@code redis://localhost:6379}), with the
     * default options; {@link #close()} closes that connection.
     *
     * @param name the queue's name; not empty, without {@code ':'}
     * @throws ValidationException when the name is invalid
     * @throws RedisException when Redis cannot be reached
     */
    public Queue(String name) {
        this(name, QueueOptions.DEFAULTS);
    }

    /**
     * A queue with these options. Unless {@code skipMetasUpdate}, it writes the queue's {@code meta} hash (the events
     * stream's cap and the version that wrote it), as BullMQ's Queue does.
     *
     * @param name the queue's name; not empty, without {@code ':'}
     * @param options the options; {@link QueueOptions#DEFAULTS} for the defaults
     * @throws ValidationException when the name or prefix is invalid
     * @throws RedisException when Redis cannot be reached
     */
    public Queue(String name, QueueOptions options) {
        ValidationException.check(options != null, "options", "must not be null");
        QueueKeys keys = new QueueKeys(options.prefix(), name);
        this.opts = options;
        this.ownsConnection = options.connection() == null;
        Bull4jConnection connection = ownsConnection ? Bull4jConnection.create() : options.connection();
        this.ctx = new QueueContext(keys, connection.link(), options.objectMapper(), options.clock());
        this.adds = new JobAdds(ctx, options);
        this.admin = new QueueAdmin(ctx);
        this.limits = new QueueLimits(ctx);
        this.schedulers = new JobSchedulers(ctx);
        this.insights = new QueueInsights(ctx);
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

    /** {@return the queue's name} */
    public String name() {
        return ctx.name();
    }

    /** {@return {@code prefix:name}, as BullMQ names a queue in flows and dashboards} */
    public String qualifiedName() {
        return ctx.keys.qualifiedName();
    }

    /** {@return the queue's options} */
    public QueueOptions options() {
        return opts;
    }

    QueueContext context() {
        return ctx;
    }

    // ---- adding ----

    /**
     * Adds a job with the queue's default options.
     *
     * @param name the job's name
     * @param data any value Jackson writes as JSON; see {@link #add(String, Object, JobOptions)}
     * @return the job as added
     * @throws ValidationException when the data cannot be serialized, before anything is written
     * @throws RedisException when Redis fails
     */
    public Job add(String name, Object data) {
        return add(name, data, null);
    }

    /**
     * Adds a job. With a {@code jobId} that exists already, nothing is added and the existing job is returned
     * (a {@code duplicated} event is emitted, as BullMQ does).
     *
     * @param name the job's name
     * @param data any value Jackson writes as JSON. {@code null} means "no data" and is stored as {@code {}}, as
     *     BullMQ stores an {@code undefined}; to store JSON {@code null}, pass {@code NullNode.getInstance()}
     * @param options the job's options, or null for the queue's defaults; unset ones come from the defaults
     * @return the job as added (or the existing one with the same id)
     * @throws ValidationException when the data cannot be serialized or is larger than {@code sizeLimit}, before
     *     anything is written
     * @throws RedisException when Redis fails
     */
    public Job add(String name, Object data, JobOptions options) {
        // the future bounds itself (with the precise exception); the longer wait here is only a backstop
        return Await.result(addAsync(name, data, options), ctx.link.commandTimeout().plusSeconds(1), "add");
    }

    /**
     * The asynchronous twin of {@link #add(String, Object)}; validation errors are thrown at once.
     *
     * @param name the job's name
     * @param data any value Jackson writes as JSON
     * @return the job as added, once Redis has it
     */
    public CompletableFuture<Job> addAsync(String name, Object data) {
        return addAsync(name, data, null);
    }

    /**
     * The asynchronous twin of {@link #add(String, Object, JobOptions)}; validation errors are thrown at once.
     * The future completes within the command timeout, also while Redis is down or frozen: exceptionally with a
     * {@link RedisNotAppliedException} (safe to retry) or a {@link RedisOutcomeUnknownException} (retry only with
     * a {@code jobId}, which makes the retry idempotent).
     *
     * @param name the job's name
     * @param data any value Jackson writes as JSON
     * @param options the job's options, or null for the queue's defaults
     * @return the job as added, once Redis has it
     */
    public CompletableFuture<Job> addAsync(String name, Object data, JobOptions options) {
        checkOpen();
        return adds.add(name, data, options);
    }

    /**
     * Adds many jobs; returns them in order. The jobs go out in scripts of 25 jobs, each sent when the one before
     * it has answered, so that a big bulk never holds Redis for long while workers wait. Each script is atomic;
     * the bulk as a whole is not (BullMQ sends one {@code MULTI}); after a script fails, the rest are not sent.
     *
     * @param jobs the jobs; all are validated before any is sent
     * @return the jobs as added, in order
     * @throws ValidationException when any job is invalid, before anything is written
     * @throws RedisException when Redis fails
     */
    public List<Job> addBulk(List<BulkJob> jobs) {
        return Await.result(addBulkAsync(jobs), adds.bulkBudget(jobs).plusSeconds(1), "addBulk");
    }

    /**
     * The asynchronous twin of {@link #addBulk(List)}; all jobs are validated before any is sent. It completes
     * within the command timeout per 200 jobs. A {@link RedisNotAppliedException} means no job was added; a
     * {@link RedisOutcomeUnknownException} that some may have been (give the jobs ids to retry).
     *
     * @param jobs the jobs
     * @return the jobs as added, in order, once Redis has them
     */
    public CompletableFuture<List<Job>> addBulkAsync(List<BulkJob> jobs) {
        checkOpen();
        return adds.addBulk(jobs);
    }

    // ---- reading ----

    /**
     * Reads a job.
     *
     * @param id the job's id
     * @return the job, or null when there is none with this id
     */
    public Job getJob(String id) {
        ValidationException.check(id != null && !id.isEmpty(), "id", "must not be empty");
        Map<String, String> fields = ctx.await(ctx.redis().hgetall(ctx.keys.job(id)), "getJob");
        return fields == null || fields.isEmpty() ? null : new Job(ctx, id, fields, null);
    }

    /**
     * Asks the worker running the job, in this process or another, to cancel it (bull4j only; BullMQ 6.7.0 can cancel
     * only from the process that runs the job). The request names the job's current lock token and is kept for a
     * minute; the bull4j worker holding that lock reads it within about a second and cancels the attempt as
     * {@link Worker#cancelJob} does. A BullMQ worker ignores it, and a later attempt of the job is not affected.
     *
     * @param jobId the job's id
     * @param reason the failed reason to record; null or empty for "job cancelled"
     * @return whether a worker held the job's lock, so that the request was written
     */
    public boolean cancelJob(String jobId, String reason) {
        ValidationException.check(jobId != null && !jobId.isEmpty(), "jobId", "must not be empty");
        checkOpen();
        String why = reason == null || reason.isEmpty() ? JobControl.DEFAULT_REASON : reason;
        return ctx.await(io.bull4j.internal.script.CancelRequests.request(ctx.scripts(), ctx.keys, jobId, why,
                JobControl.REQUEST_KEEP_MS), "cancelJob");
    }

    /**
     * Moves a dead letter of this queue (a dead-letter queue, see {@link WorkerOptions.Builder#deadLetterQueue})
     * back to the queue it came from (bull4j only): the failed job there is retried with its attempts reset (as
     * {@link Job#retry(JobState, boolean, boolean)}) when it is still failed, else a job with the same name, data
     * and options is added; then the dead letter is removed. Two steps, not one script: if the process dies between
     * them, the dead letter stays and a second replay retries or adds again. A dead letter that a worker of this
     * queue is processing is refused; one taken by a worker between the two steps stays (logged as a WARN).
     *
     * @param deadLetterId the dead letter's id in this queue
     * @return the job in the source queue, as it is after the replay
     * @throws JobException {@code JOB_NOT_FOUND} when there is no such job, {@code BAD_DATA} when it is not a dead
     *     letter, {@code JOB_LOCKED} when a worker holds it
     */
    public Job replayDeadLetter(String deadLetterId) {
        Job letter = getJob(deadLetterId);
        if (letter == null) {
            throw new JobException(name(), deadLetterId, JobException.Reason.JOB_NOT_FOUND, "job " + deadLetterId
                    + " of queue " + name() + " does not exist");
        }
        DeadLetter record = letter.deadLetter();
        if (record == null) {
            throw new JobException(name(), deadLetterId, JobException.Reason.BAD_DATA, "job " + deadLetterId
                    + " of queue " + name() + " is not a dead letter");
        }
        if (ctx.await(ctx.redis().exists(ctx.keys.lock(deadLetterId)), "EXISTS lock") > 0) {
            throw new JobException(name(), deadLetterId, JobException.Reason.JOB_LOCKED, "dead letter "
                    + deadLetterId + " of queue " + name() + " is being processed by a worker; nothing replayed");
        }
        Job replayed;
        // on this queue's connection when it was given one; otherwise, as this queue, on one from REDIS_URL
        try (Queue source = new Queue(record.queue(), opts.toBuilder().skipMetasUpdate(true).build())) {
            Job original = source.getJob(record.jobId());
            if (original != null && original.getState() == JobState.FAILED) {
                original.retry(JobState.FAILED, true, true);
                replayed = source.getJob(record.jobId());
            } else {
                replayed = source.add(letter.name(), Json.tree(letter.dataJson()),
                        OptionsCodec.read(record.optsJson()));
            }
        }
        if (!letter.remove()) {
            log.warn("dead letter {} of queue {} was replayed to job {} of queue {} but stays: a worker took it "
                    + "meanwhile", deadLetterId, name(), replayed == null ? null : replayed.id(), record.queue());
        }
        return replayed;
    }

    /**
     * How many jobs each state holds, in the order asked (all states but {@link JobState#PAUSED}, in BullMQ's
     * order, when none is named), as BullMQ's {@code getJobCounts}: {@link JobState#WAITING} counts the wait list,
     * {@link JobState#PAUSED} the legacy {@code paused} list of old BullMQ versions. One Redis call.
     *
     * @param states the states to count; none for all
     * @return the count of each state, in the order asked
     */
    public Map<JobState, Long> getJobCounts(JobState... states) {
        checkOpen();
        return admin.counts(QueueAdmin.checkStates(states));
    }

    /**
     * {@return the jobs still to run, as BullMQ's {@code count()}: waiting + delayed + prioritized + waiting-children}
     */
    public long count() {
        checkOpen();
        return admin.counts(List.of(JobState.WAITING, JobState.DELAYED, JobState.PRIORITIZED,
                JobState.WAITING_CHILDREN)).values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Snapshots of the jobs in the given states (all when empty), state after state (in the set's order; for a
     * {@code Set.of} or a {@code HashSet}, which have none of their own, in the order of a call that names no
     * state), each job once. Per state the
     * positions {@code start..end} are taken (Redis index rules: {@code -1} is the last), newest first: the wait
     * and active lists by insertion, sorted sets by descending score (finish time, due time, priority). With
     * {@code asc} the order is reversed. Jobs removed meanwhile are skipped and a bounded page is refilled from
     * the jobs after it, as in BullMQ. {@link JobState#PAUSED} lists the legacy {@code paused} list of old BullMQ
     * versions (not listed when no state is named, as in BullMQ). One Redis call.
     *
     * @param states the states to list; empty for all
     * @param start the first position, per state
     * @param end the last position, per state ({@code -1} for the last)
     * @param asc oldest first instead of newest first
     * @return the jobs
     */
    public List<Job> getJobs(Set<JobState> states, long start, long end, boolean asc) {
        checkOpen();
        return admin.jobs(QueueAdmin.checkStates(states), start, end, asc);
    }

    /**
     * All jobs in the given states (all states when none is named), newest first; see
     * {@link #getJobs(Set, long, long, boolean)}.
     *
     * @param states the states to list; none for all
     * @return the jobs
     */
    public List<Job> getJobs(JobState... states) {
        checkOpen();
        return admin.jobs(QueueAdmin.checkStates(states), 0, -1, false);
    }

    // ---- metrics and observability (as BullMQ 6.7.0; see docs/observability.md) ----

    /**
     * The finished-job metrics that workers with {@link WorkerOptions.Builder#metrics(int) metrics} write, bull4j's
     * and BullMQ's alike, as BullMQ's {@code getMetrics}. One Redis call.
     *
     * @param type {@link JobState#COMPLETED} or {@link JobState#FAILED}
     * @param start the first per-minute point to read (0: the newest)
     * @param end the last one ({@code -1}: the oldest kept)
     * @return the metrics; all zero when nothing was counted
     * @throws ValidationException for another state
     */
    public JobMetrics getMetrics(JobState type, long start, long end) {
        checkOpen();
        return insights.metrics(type, start, end);
    }

    /**
     * {@link #getMetrics(JobState, long, long)} with every per-minute point.
     *
     * @param type {@link JobState#COMPLETED} or {@link JobState#FAILED}
     * @return the metrics
     */
    public JobMetrics getMetrics(JobState type) {
        return getMetrics(type, 0, -1);
    }

    /**
     * The queue's state in Prometheus's text format, line for line what BullMQ's {@code exportPrometheusMetrics}
     * gives for the same state: the gauge {@code bullmq_job_count} per state ({@code queue} and {@code state}
     * labels) and the counters {@code bullmq_job_completed_total} and {@code bullmq_job_failed_total} (the totals
     * that workers with {@link WorkerOptions.Builder#metrics(int) metrics} count), each with its HELP and TYPE
     * lines, joined by {@code \n} with none after the last. Three reads, sent together; for Micrometer see
     * {@code io.bull4j.micrometer}.
     *
     * @param labels labels added to every sample after {@code queue} (and {@code state}), in the map's order; names
     *     must be Prometheus label names, values are escaped; null or empty for none
     * @return the text
     * @throws ValidationException for a bad label name or a null value, before anything is read
     */
    public String exportPrometheusMetrics(Map<String, String> labels) {
        checkOpen();
        return insights.prometheus(labels);
    }

    /** {@return {@link #exportPrometheusMetrics(Map)} without extra labels} */
    public String exportPrometheusMetrics() {
        return exportPrometheusMetrics(null);
    }

    /**
     * The workers connected to this queue now, bull4j's and BullMQ's alike, as BullMQ's {@code getWorkers}: the
     * connections in Redis's {@code CLIENT LIST} named as a worker's blocking connection of this queue
     * ({@code <prefix>:<base64(queue)>}, with {@code :w:<workerName>} for a named worker). Each is CLIENT LIST's
     * fields ({@code id}, {@code addr}, {@code age}, {@code idle}, ...) with {@code name} set to the queue's name and
     * {@code rawname} to the connection's name. On a Cluster, the node with the most of them is read, as BullMQ does.
     * One Redis call per node; a Redis without {@code CLIENT LIST} fails with its error.
     *
     * @return the workers' connections
     */
    public List<Map<String, String>> getWorkers() {
        checkOpen();
        return insights.workers();
    }

    /** {@return how many workers {@link #getWorkers()} lists} */
    public int getWorkersCount() {
        return getWorkers().size();
    }

    /**
     * A page of a job's log lines and their count, as BullMQ's {@code getJobLogs}. One Redis call.
     *
     * @param id the job's id
     * @param start the first line (0: the oldest, or the newest when not {@code asc})
     * @param end the last line, inclusive ({@code -1}: through the last)
     * @param asc oldest first; {@code false} counts positions from the newest line and lists newest first
     * @return the lines and the log's length (none and 0 for a job without logs)
     */
    public JobLogs getJobLogs(String id, long start, long end, boolean asc) {
        checkOpen();
        return insights.logs(id, start, end, asc);
    }

    /**
     * Trims the events stream to about {@code maxLength} entries (Redis's approximate {@code XTRIM MAXLEN ~}), as
     * BullMQ's {@code trimEvents}; the oldest go first.
     *
     * @param maxLength the entries to keep, at least 0
     * @return how many entries were removed
     */
    public long trimEvents(long maxLength) {
        checkOpen();
        return insights.trimEvents(maxLength);
    }

    /** {@return the queue's meta hash, read as BullMQ's {@code getMeta} reads it} */
    public QueueMeta getMeta() {
        checkOpen();
        return insights.meta();
    }

    /**
     * {@return the version that last opened a Queue on this queue ({@code bullmq:6.7.0}, {@code bull4j:0.1.0}), or
     * null when none wrote it (queues opened with {@code skipMetasUpdate} only)}
     */
    public String getVersion() {
        checkOpen();
        return insights.version();
    }

    /**
     * How many ready jobs each priority holds, as BullMQ's {@code getCountsPerPriority}: priority 0 counts the wait
     * list, any other its jobs in the prioritized set. One Redis call.
     *
     * @param priorities the priorities, 0..{@value JobOptions#MAX_PRIORITY}; a repeated one is counted once
     * @return the count of each priority, in the order first named
     */
    public Map<Integer, Long> getCountsPerPriority(int... priorities) {
        checkOpen();
        return insights.countsPerPriority(priorities);
    }

    /**
     * The parents of flows waiting for their children, oldest first (BullMQ's {@code getWaitingChildren}); see
     * {@link #getJobs(Set, long, long, boolean)}.
     *
     * @param start the first position
     * @param end the last position ({@code -1} for the last)
     * @return the jobs
     */
    public List<Job> getWaitingChildren(long start, long end) {
        return getJobs(Set.of(JobState.WAITING_CHILDREN), start, end, true);
    }

    /**
     * A page of a flow parent's children of one kind, with their jobs, as BullMQ's
     * {@code queue.getDependencies(parentId, type, start, end)}: positions {@code start..end} in the order Redis
     * scans the parent's {@code :processed} hash or {@code :dependencies} set (a set keeps no order: a page read
     * while children finish may repeat or miss one).
     *
     * @param parentId the parent's id in this queue
     * @param kind processed (with return values) or pending children
     * @param start the first position, from 0
     * @param end the last position, {@code -1} for the last
     * @return the page and the parent's count of that kind; empty when the parent has none (or does not exist)
     * @throws ValidationException for a null id or kind, a negative start or an end below -1
     * @throws RedisException when Redis fails
     */
    public JobDependencies.Page getDependencies(String parentId, JobDependencies.Kind kind, long start, long end) {
        checkOpen();
        return FlowReader.page(ctx, parentId, kind, start, end);
    }

    /** {@return how many parents of flows wait for their children} */
    public long getWaitingChildrenCount() {
        return getJobCounts(JobState.WAITING_CHILDREN).get(JobState.WAITING_CHILDREN);
    }

    // ---- job schedulers ----

    /**
     * Creates the job scheduler {@code id}, or replaces its definition, as BullMQ's {@code upsertJobScheduler}
     * (same Redis layout, so BullMQ workers run its jobs and bull4j workers run BullMQ's). Each run is a job
     * {@code repeat:<id>:<millis>}; the next run is added when a worker takes the current one, so a run that fails
     * does not stop the schedule. A pending run that has not started is replaced (an every scheduler keeps its
     * time unless {@code every} changed).
     *
     * @param id the scheduler's id
     * @param repeat when it runs
     * @param template the jobs' name (default: {@code id}), data and options; null for defaults
     * @return the pending run's job
     * @throws ValidationException for an end date in the past, or a cron pattern with no run before it
     */
    public Job upsertJobScheduler(String id, RepeatOptions repeat, JobTemplate template) {
        checkOpen();
        Telemetry telemetry = opts.telemetry();
        if (telemetry == null) {
            return schedulers.upsert(id, repeat, template, opts.defaultJobOptions(), null);
        }
        // as BullMQ's: an add span whose context the first run stores, and every later run copies from its run
        Telemetry.Span span = Traces.startAdd(telemetry, ctx.name(),
                template == null || template.name() == null ? String.valueOf(id) : template.name());
        try {
            Job job = schedulers.upsert(id, repeat, template, opts.defaultJobOptions(), Traces.metadata(span));
            Traces.endSchedulerAdd(span, id, job.id());
            return job;
        } catch (RuntimeException e) {
            Traces.end(span, e);
            throw e;
        }
    }

    /**
     * {@return the job scheduler {@code id} as stored, or null when there is none}
     *
     * @param id the scheduler's id
     */
    public JobScheduler getJobScheduler(String id) {
        checkOpen();
        return schedulers.get(id);
    }

    /**
     * The job schedulers at positions {@code start..end} (Redis index rules, {@code -1} is the last) ordered by
     * their next run, latest first, or earliest first with {@code asc}. An entry whose definition is gone is
     * removed on the way, as BullMQ does.
     *
     * @param start the first position, from 0
     * @param end the last position, inclusive; -1 for the last
     * @param asc earliest next run first
     * @return the schedulers
     */
    public List<JobScheduler> getJobSchedulers(long start, long end, boolean asc) {
        checkOpen();
        return schedulers.list(start, end, asc);
    }

    /** {@return all job schedulers, latest next run first} */
    public List<JobScheduler> getJobSchedulers() {
        return getJobSchedulers(0, -1, false);
    }

    /** {@return how many job schedulers the queue has} */
    public long getJobSchedulersCount() {
        checkOpen();
        return schedulers.count();
    }

    /**
     * Removes the job scheduler and its pending run if that is still delayed; a run already waiting or active
     * runs to its end and adds no next one.
     *
     * @param id the scheduler's id
     * @return whether the scheduler existed
     */
    public boolean removeJobScheduler(String id) {
        checkOpen();
        return schedulers.remove(id);
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

    /** {@return whether the queue is paused (by any client)} */
    public boolean isPaused() {
        checkOpen();
        return admin.isPaused();
    }

    /**
     * Removes a job, whatever its state, with its logs and other keys, and emits {@code removed}. Returns false,
     * changing nothing, when a worker holds the job's lock, when the job is the pending run of a job scheduler,
     * or when there is no such job. As in BullMQ, a flow parent's children (in any queue) are removed too (refused
     * when a pending one is locked), and a child is unlinked from its parent, which is released when it was the
     * last pending child.
     *
     * @param jobId the job's id
     * @return whether the job was removed
     */
    public boolean remove(String jobId) {
        return remove(jobId, true);
    }

    /**
     * Removes a job as {@link #remove(String)}, choosing whether a flow parent's children go too.
     *
     * @param jobId the job's id
     * @param removeChildren true to remove the children too (BullMQ's default), false to leave them
     * @return whether the job was removed
     */
    public boolean remove(String jobId, boolean removeChildren) {
        checkOpen();
        ValidationException.check(jobId != null && !jobId.isEmpty(), "jobId", "must not be empty");
        return admin.remove(jobId, removeChildren);
    }

    /**
     * Removes every job that waits to run (waiting and prioritized, and delayed too when {@code delayed}), with
     * their keys; active and finished jobs stay. Emits no events, as BullMQ.
     *
     * @param delayed whether delayed jobs are removed too
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
     * @param grace the minimum age of a removed job
     * @param state the state to clean
     * @return the ids removed
     */
    public List<String> clean(Duration grace, int limit, JobState state) {
        checkOpen();
        ValidationException.check(grace != null && !grace.isNegative(), "grace", "must be zero or more");
        ValidationException.checkDuration(grace, "grace");
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

    /**
     * {@link #retryJobs(JobState, int, Instant)} for all jobs finished until now, 1000 per Redis call.
     *
     * @param state {@link JobState#COMPLETED} or {@link JobState#FAILED}
     * @return how many jobs moved
     */
    public int retryJobs(JobState state) {
        return retryJobs(state, 1000, Instant.ofEpochMilli(ctx.now()));
    }

    /**
     * Moves completed or failed jobs back to wait, {@code count} per Redis call until none is left, emitting
     * {@code waiting} with {@code prev} the state they left. Their finish time, start time and return value or
     * failure are cleared; attempt counters stay. As in BullMQ, a job with a priority goes to wait too (it runs in
     * wait order, before prioritized jobs).
     *
     * @param timestamp only jobs that finished at or before it ({@link Instant#MAX}: all)
     * @param state {@link JobState#COMPLETED} or {@link JobState#FAILED}
     * @param count jobs per Redis call
     * @return how many jobs moved
     */
    public int retryJobs(JobState state, int count, Instant timestamp) {
        checkOpen();
        ValidationException.check(state == JobState.COMPLETED || state == JobState.FAILED, "state",
                "must be COMPLETED or FAILED, was " + state);
        ValidationException.check(count > 0, "count", "must be positive, was " + count);
        ValidationException.check(timestamp != null, "timestamp", "must not be null");
        // an instant past what epoch milliseconds hold takes everything (or nothing, before)
        long until = timestamp.isAfter(Instant.ofEpochMilli(Long.MAX_VALUE)) ? Long.MAX_VALUE
                : timestamp.isBefore(Instant.ofEpochMilli(Long.MIN_VALUE)) ? Long.MIN_VALUE : timestamp.toEpochMilli();
        return admin.moveToWait(state.wireName(), count, Long.toString(until));
    }

    /**
     * {@link #promoteJobs(int)} with 1000 jobs per Redis call.
     *
     * @return how many jobs moved
     */
    public int promoteJobs() {
        return promoteJobs(1000);
    }

    /**
     * Moves every delayed job to wait now, {@code count} per Redis call, emitting {@code waiting} with
     * {@code prev=delayed}. As in BullMQ, a job with a priority goes to wait too, and the job keeps its
     * {@code delay} field.
     *
     * @param count jobs per Redis call
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
     * Holds every worker of the queue (bull4j's and BullMQ's) that knows a max for {@code duration}: no job starts
     * until it ends. Writes BullMQ's manual limit to the {@code limiter} key; with {@link RateLimitException} from a
     * processor this is how a downstream's "429, retry after" is honoured.
     *
     * @param duration how long, at least 1 ms
     */
    public void rateLimit(Duration duration) {
        checkOpen();
        limits.rateLimit(duration);
    }

    /**
     * A rate limit for all workers of the queue (meta {@code max}/{@code duration}). The max wins over a worker's
     * own limiter; a worker's limiter duration wins over this duration, as in BullMQ.
     *
     * @param max at most this many jobs start per window, at least 1
     * @param duration the window, at least 1 ms
     */
    public void setGlobalRateLimit(int max, Duration duration) {
        checkOpen();
        limits.setGlobalRateLimit(max, duration);
    }

    /** {@return the global rate limit, or null when none is set} */
    public RateLimit getGlobalRateLimit() {
        checkOpen();
        return limits.getGlobalRateLimit();
    }

    /** Removes the global rate limit; workers with a limiter of their own keep it. */
    public void removeGlobalRateLimit() {
        checkOpen();
        limits.removeGlobalRateLimit();
    }

    /**
     * The time left in the current rate-limit window, as BullMQ's {@code getRateLimitTtl}.
     *
     * @param maxJobs the max to compare the window's count with; 0 for the global max
     * @return the ms left when at least {@code maxJobs} jobs started in the window, else 0; with {@code maxJobs} 0
     *     and no global max, the limiter key's PTTL as Redis gives it (-2: no window)
     */
    public long getRateLimitTtl(long maxJobs) {
        checkOpen();
        return limits.rateLimitTtl(maxJobs);
    }

    /** {@return {@link #getRateLimitTtl(long)} against the global max} */
    public long getRateLimitTtl() {
        return getRateLimitTtl(0);
    }

    /**
     * Deletes the limiter key: the current window (or a manual {@link #rateLimit}) ends now.
     *
     * @return whether there was a key
     */
    public boolean removeRateLimitKey() {
        checkOpen();
        return limits.removeRateLimitKey();
    }

    /**
     * Caps the jobs of the queue active at once, over all workers of both sides (meta {@code concurrency}).
     *
     * @param concurrency at least 1
     */
    public void setGlobalConcurrency(int concurrency) {
        checkOpen();
        limits.setGlobalConcurrency(concurrency);
    }

    /** {@return the global concurrency, or null when none is set} */
    public Integer getGlobalConcurrency() {
        checkOpen();
        return limits.getGlobalConcurrency();
    }

    /** Removes the global concurrency cap. */
    public void removeGlobalConcurrency() {
        checkOpen();
        limits.removeGlobalConcurrency();
    }

    /** {@return whether a global concurrency is set and as many jobs are active now} */
    public boolean isMaxed() {
        checkOpen();
        return limits.isMaxed();
    }

    /**
     * The job that owns a deduplication id now.
     *
     * @param deduplicationId the id given in {@link Deduplication}
     * @return the owner's job id, or null when none owns it
     */
    public String getDeduplicationJobId(String deduplicationId) {
        checkOpen();
        return limits.deduplicationJobId(deduplicationId);
    }

    /**
     * Ends a deduplication window whatever job owns it: the next add with this id creates a job.
     *
     * @param deduplicationId the id given in {@link Deduplication}
     * @return whether a key was removed
     */
    public boolean removeDeduplicationKey(String deduplicationId) {
        checkOpen();
        return limits.removeDeduplicationKey(deduplicationId);
    }

    /**
     * BullMQ's deprecated alias of {@link #getDeduplicationJobId(String)}, kept as 6.7.0 keeps it.
     *
     * @param id the deduplication id
     * @return the owner's job id, or null
     * @deprecated use {@link #getDeduplicationJobId(String)}
     */
    @Deprecated
    public String getDebounceJobId(String id) {
        return getDeduplicationJobId(id);
    }

    /**
     * BullMQ's deprecated alias of {@link #removeDeduplicationKey(String)}, kept as 6.7.0 keeps it.
     *
     * @param id the deduplication id
     * @return whether a key was removed
     * @deprecated use {@link #removeDeduplicationKey(String)}
     */
    @Deprecated
    public boolean removeDebounceKey(String id) {
        return removeDeduplicationKey(id);
    }

    private void checkOpen() {
        if (closed) {
            throw new Bull4jException("queue " + ctx.name() + " is closed");
        }
    }

    /**
     * Closes the queue: its connection when it opened it, never a shared one. Idempotent; the queue cannot be used
     * after it.
     */
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
