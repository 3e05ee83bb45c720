package io.bull4j.micrometer;

import io.bull4j.Job;
import io.bull4j.ValidationException;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Timers and counters of what a {@link Worker} does, from its listener callbacks:
 * <ul>
 * <li>{@code bull4j.jobs.wait} (timer): from a job's add ({@code timestamp}) to the start of each attempt
 * ({@code processedOn}); a delayed job's delay is part of it;</li>
 * <li>{@code bull4j.jobs.process} (timer, tag {@code outcome} completed or failed): from the start of an attempt to
 * the job's completion or final failure ({@code finishedOn - processedOn});</li>
 * <li>{@code bull4j.jobs.completed}, {@code bull4j.jobs.failed} (final failures), {@code bull4j.jobs.retried}
 * (failed attempts that will be retried) (counters);</li>
 * <li>{@code bull4j.jobs.stalled} (counter, no job name): jobs this worker's stalled check moved back to wait.</li>
 * </ul>
 * Every meter has the tags {@code queue} and the given ones, and all but the stalled counter {@code job.name}: the
 * job's name, for the first {@code maxJobNames} names seen, then {@value #OTHER_NAME} for any other, so that a
 * stream of distinct names cannot grow the registry without bound.
 *
 * <pre>{@code
 * WorkerMetrics meters = new WorkerMetrics(worker, Tags.of("app", "billing"), 100);
 * meters.bindTo(registry);
 * }</pre>
 *
 * <p>Thread-safe. The meters are updated on the worker's event thread, shortly after each event. {@link #close()}
 * stops updating them (the listener is removed); the meters stay in the registry.
 */
public final class WorkerMetrics implements MeterBinder, AutoCloseable {
    /** The wait timer's name. */
    public static final String WAIT = "bull4j.jobs.wait";
    /** The processing timer's name. */
    public static final String PROCESS = "bull4j.jobs.process";
    /** The completed counter's name. */
    public static final String COMPLETED = "bull4j.jobs.completed";
    /** The failed counter's name (final failures). */
    public static final String FAILED = "bull4j.jobs.failed";
    /** The retried counter's name (failed attempts that will be retried). */
    public static final String RETRIED = "bull4j.jobs.retried";
    /** The stalled counter's name. */
    public static final String STALLED = "bull4j.jobs.stalled";
    /** The {@code job.name} of jobs past the first {@code maxJobNames} names. */
    public static final String OTHER_NAME = "_other";
    /** The default bound on distinct job names: 100. */
    public static final int DEFAULT_MAX_JOB_NAMES = 100;

    private final Worker worker;
    private final Tags tags;
    private final int maxJobNames;
    private final Map<String, Meters> byName = new ConcurrentHashMap<>();
    /** Jobs whose failed attempt was announced as retried: their next onFailed is not a final failure. */
    private final Set<String> retrying = ConcurrentHashMap.newKeySet();
    private final Listener listener = new Listener();
    private volatile MeterRegistry registry;
    private volatile Counter stalled;

    /**
     * Meters of {@code worker} with no extra tags and at most {@link #DEFAULT_MAX_JOB_NAMES} job names.
     *
     * @param worker the worker
     */
    public WorkerMetrics(Worker worker) {
        this(worker, Tags.empty(), DEFAULT_MAX_JOB_NAMES);
    }

    /**
     * Meters of {@code worker}.
     *
     * @param worker the worker
     * @param tags tags added to every meter
     * @param maxJobNames how many distinct job names get meters of their own, at least 1
     * @throws ValidationException for a null worker or tags, or {@code maxJobNames} below 1
     */
    public WorkerMetrics(Worker worker, Iterable<Tag> tags, int maxJobNames) {
        ValidationException.check(worker != null, "worker", "must not be null");
        ValidationException.check(tags != null, "tags", "must not be null");
        ValidationException.check(maxJobNames >= 1, "maxJobNames", "must be >= 1 (was " + maxJobNames + ")");
        this.worker = worker;
        this.tags = Tags.of(tags).and("queue", worker.queueName());
        this.maxJobNames = maxJobNames;
    }

    /** Registers the meters and starts updating them; bind to one registry only (a composite for several). */
    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        this.stalled = Counter.builder(STALLED).description("Jobs found stalled and moved back to wait")
                .tags(tags).register(registry);
        worker.addListener(listener);
    }

    /** Stops updating the meters. Idempotent. */
    @Override
    public void close() {
        worker.removeListener(listener);
    }

    private Meters meters(String jobName) {
        String name = jobName == null ? "" : jobName;
        Meters m = byName.get(name);
        if (m != null) {
            return m;
        }
        if (byName.size() >= maxJobNames) {
            return byName.computeIfAbsent(OTHER_NAME, n -> new Meters(registry, tags.and("job.name", n)));
        }
        return byName.computeIfAbsent(name, n -> new Meters(registry, tags.and("job.name", n)));
    }

    private static Duration between(Instant from, Instant to) {
        if (from == null || to == null || to.isBefore(from)) {
            return null;
        }
        return Duration.between(from, to);
    }

    /** The meters of one job name. */
    private static final class Meters {
        final Timer wait;
        final Timer processCompleted;
        final Timer processFailed;
        final Counter completed;
        final Counter failed;
        final Counter retried;

        Meters(MeterRegistry r, Tags t) {
            wait = Timer.builder(WAIT).description("From a job's add to the start of an attempt").tags(t)
                    .register(r);
            processCompleted = Timer.builder(PROCESS).description("From an attempt's start to the job's outcome")
                    .tags(t).tag("outcome", "completed").register(r);
            processFailed = Timer.builder(PROCESS).description("From an attempt's start to the job's outcome")
                    .tags(t).tag("outcome", "failed").register(r);
            completed = Counter.builder(COMPLETED).description("Jobs completed").tags(t).register(r);
            failed = Counter.builder(FAILED).description("Jobs failed with no attempt left").tags(t).register(r);
            retried = Counter.builder(RETRIED).description("Failed attempts that will be retried").tags(t)
                    .register(r);
        }
    }

    private final class Listener implements WorkerListener {
        @Override
        public void onActive(Job job) {
            Duration d = between(job.timestamp(), job.processedOn());
            if (d != null) {
                meters(job.name()).wait.record(d);
            }
        }

        @Override
        public void onCompleted(Job job, Object result) {
            Meters m = meters(job.name());
            m.completed.increment();
            Duration d = between(job.processedOn(), job.finishedOn());
            if (d != null) {
                m.processCompleted.record(d);
            }
        }

        @Override
        public void onRetrying(Job job, Throwable error, Duration delay) {
            retrying.add(job.id());
            meters(job.name()).retried.increment();
        }

        @Override
        public void onFailed(Job job, Throwable error) {
            if (retrying.remove(job.id())) {
                return; // counted as retried
            }
            Meters m = meters(job.name());
            m.failed.increment();
            Duration d = between(job.processedOn(), job.finishedOn());
            if (d != null) {
                m.processFailed.record(d);
            }
        }

        @Override
        public void onStalled(String jobId) {
            Counter c = stalled;
            if (c != null) {
                c.increment();
            }
        }
    }
}
