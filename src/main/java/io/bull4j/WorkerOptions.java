package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;

/**
 * Options of a {@link Worker}, with BullMQ's defaults. Immutable; build with {@link #builder()}. {@code build()}
 * rejects inconsistent values (such as {@code lockRenewTime >= lockDuration}) naming the field.
 *
 * <pre>{@code WorkerOptions.builder().concurrency(10).lockDuration(Duration.ofMinutes(1)).build()}</pre>
 */
public final class WorkerOptions {
    /** The default {@link Builder#concurrency(int) concurrency}: 1 job at a time, as in BullMQ. */
    public static final int DEFAULT_CONCURRENCY = 1;
    /** The default {@link Builder#lockDuration(Duration) lockDuration}: 30 seconds. */
    public static final Duration DEFAULT_LOCK_DURATION = Duration.ofSeconds(30);
    /** The default {@link Builder#stalledInterval(Duration) stalledInterval}: 30 seconds. */
    public static final Duration DEFAULT_STALLED_INTERVAL = Duration.ofSeconds(30);
    /** The default {@link Builder#stalledSweepInterval(Duration) stalledSweepInterval}: 1 second. */
    public static final Duration DEFAULT_STALLED_SWEEP_INTERVAL = Duration.ofSeconds(1);
    /** The default {@link Builder#maxStalledCount(int) maxStalledCount}: 1. */
    public static final int DEFAULT_MAX_STALLED_COUNT = 1;
    /** The default {@link Builder#drainDelay(Duration) drainDelay}: 5 seconds. */
    public static final Duration DEFAULT_DRAIN_DELAY = Duration.ofSeconds(5);
    /** The default {@link Builder#maximumRateLimitDelay(Duration) maximumRateLimitDelay}: 30 seconds, as BullMQ. */
    public static final Duration DEFAULT_MAXIMUM_RATE_LIMIT_DELAY = Duration.ofSeconds(30);
    /** How long {@link Worker#close()} waits for running jobs before it interrupts them and lets them go. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    /** All options at their defaults. */
    public static final WorkerOptions DEFAULTS = builder().build();

    private final int concurrency;
    private final Duration lockDuration;
    private final Duration lockRenewTime;
    private final Duration explicitLockRenewTime; // null: derived from lockDuration, and re-derived by toBuilder
    private final Duration stalledInterval;
    private final Duration stalledSweepInterval;
    private final int maxStalledCount;
    private final int maxStartedAttempts;
    private final Duration drainDelay;
    private final Duration closeTimeout;
    private final boolean autorun;
    private final String name;
    private final String prefix;
    private final Bull4jConnection connection;
    private final KeepJobs removeOnComplete;
    private final KeepJobs removeOnFail;
    private final BackoffStrategy backoffStrategy;
    private final ExecutorService executor;
    private final boolean virtualThreads;
    private final ObjectMapper objectMapper;
    private final boolean checkEvictionPolicy;
    private final Clock clock;
    private final int limiterMax;
    private final Duration limiterDuration;
    private final Duration maximumRateLimitDelay;
    private final int metricsMaxDataPoints;
    private final Duration timeout;
    private final String deadLetterQueue;
    private final Telemetry telemetry;

    private WorkerOptions(Builder b) {
        concurrency = b.concurrency;
        lockDuration = b.lockDuration;
        lockRenewTime = b.lockRenewTime != null ? b.lockRenewTime : b.lockDuration.dividedBy(2);
        explicitLockRenewTime = b.lockRenewTime;
        stalledInterval = b.stalledInterval;
        stalledSweepInterval = b.stalledSweepInterval;
        maxStalledCount = b.maxStalledCount;
        maxStartedAttempts = b.maxStartedAttempts;
        drainDelay = b.drainDelay;
        closeTimeout = b.closeTimeout;
        autorun = b.autorun;
        name = b.name;
        prefix = b.prefix;
        connection = b.connection;
        removeOnComplete = b.removeOnComplete;
        removeOnFail = b.removeOnFail;
        backoffStrategy = b.backoffStrategy;
        executor = b.executor;
        virtualThreads = b.virtualThreads;
        objectMapper = b.objectMapper;
        checkEvictionPolicy = b.checkEvictionPolicy;
        clock = b.clock;
        limiterMax = b.limiterMax;
        limiterDuration = b.limiterDuration;
        maximumRateLimitDelay = b.maximumRateLimitDelay;
        metricsMaxDataPoints = b.metricsMaxDataPoints;
        timeout = b.timeout;
        deadLetterQueue = b.deadLetterQueue;
        telemetry = b.telemetry;
    }

    /** {@return a builder with every option at its default} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these options, to change some of them} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.concurrency = concurrency;
        b.lockDuration = lockDuration;
        b.lockRenewTime = explicitLockRenewTime;
        b.stalledInterval = stalledInterval;
        b.stalledSweepInterval = stalledSweepInterval;
        b.maxStalledCount = maxStalledCount;
        b.maxStartedAttempts = maxStartedAttempts;
        b.drainDelay = drainDelay;
        b.closeTimeout = closeTimeout;
        b.autorun = autorun;
        b.name = name;
        b.prefix = prefix;
        b.connection = connection;
        b.removeOnComplete = removeOnComplete;
        b.removeOnFail = removeOnFail;
        b.backoffStrategy = backoffStrategy;
        b.executor = executor;
        b.virtualThreads = virtualThreads;
        b.objectMapper = objectMapper;
        b.checkEvictionPolicy = checkEvictionPolicy;
        b.clock = clock;
        b.limiterMax = limiterMax;
        b.limiterDuration = limiterDuration;
        b.maximumRateLimitDelay = maximumRateLimitDelay;
        b.metricsMaxDataPoints = metricsMaxDataPoints;
        b.timeout = timeout;
        b.deadLetterQueue = deadLetterQueue;
        b.telemetry = telemetry;
        return b;
    }

    /** {@return how many jobs this worker runs at once} */
    public int concurrency() { return concurrency; }
    /**
     * {@return how long a job's lock lives without renewal; a job whose worker dies is recovered after about this long}
     */
    public Duration lockDuration() { return lockDuration; }
    /** {@return how often the held locks are renewed: the value set, else half of {@link #lockDuration()}} */
    public Duration lockRenewTime() { return lockRenewTime; }
    /** {@return how often active jobs are checked for an expired lock} */
    public Duration stalledInterval() { return stalledInterval; }
    /** {@return how often the stalled sweep runs between passes; zero when it is off} */
    public Duration stalledSweepInterval() { return stalledSweepInterval; }
    /** {@return how many times a job may stall before it is failed} */
    public int maxStalledCount() { return maxStalledCount; }

    /** {@return the most times a job may be started before it is failed without running; 0 for no limit} */
    public int maxStartedAttempts() { return maxStartedAttempts; }
    /** {@return the longest single blocking wait for a job while the queue is empty} */
    public Duration drainDelay() { return drainDelay; }
    /**
     * {@return how long {@link Worker#close()} waits for running jobs} After it they are interrupted; a job that
     * still does not end is let go: its lock is no longer renewed (a WARN names it), so the stalled check recovers
     * it once the lock expires.
     */
    public Duration closeTimeout() { return closeTimeout; }
    /** {@return whether the worker's constructor starts processing} */
    public boolean autorun() { return autorun; }
    /**
     * {@return the worker's name, stored as a job's {@code processedBy} and in its Redis client name; null when unset}
     */
    public String name() { return name; }
    /** {@return the key prefix of the queue} */
    public String prefix() { return prefix; }
    /** {@return the shared connection, or null when the worker opens (and closes) its own} */
    public Bull4jConnection connection() { return connection; }
    /** {@return which completed jobs to keep, for jobs that set none of their own; null keeps them all} */
    public KeepJobs removeOnComplete() { return removeOnComplete; }
    /** {@return which failed jobs to keep, for jobs that set none of their own; null keeps them all} */
    public KeepJobs removeOnFail() { return removeOnFail; }
    /** {@return the strategy for {@link Backoff#custom custom} backoff types, or null} */
    public BackoffStrategy backoffStrategy() { return backoffStrategy; }
    /** {@return the executor that runs processors, or null for bull4j's own (see {@link Builder#executor})} */
    public ExecutorService executor() { return executor; }
    /**
     * {@return whether the default executor uses virtual threads when the JVM has them (Java 21+)}
     * Ignored when an {@link #executor()} is given.
     */
    public boolean virtualThreads() { return virtualThreads; }
    /** {@return the Jackson mapper for job data and results} */
    public ObjectMapper objectMapper() { return objectMapper; }
    /** {@return whether a WARN is logged (once per Redis server) when its maxmemory-policy is not noeviction} */
    public boolean checkEvictionPolicy() { return checkEvictionPolicy; }
    /** {@return the time source for timestamps and due times} */
    public Clock clock() { return clock; }
    /** {@return the rate limiter's max jobs per window, 0 when the worker has no limiter} */
    public int limiterMax() { return limiterMax; }
    /** {@return the rate limiter's window, null when the worker has no limiter} */
    public Duration limiterDuration() { return limiterDuration; }
    /** {@return the longest a rate-limited worker waits before it asks again (so that due delayed jobs get promoted)} */
    public Duration maximumRateLimitDelay() { return maximumRateLimitDelay; }
    /**
     * {@return how many per-minute data points the worker keeps in the queue's finished-job metrics, 0 when it
     * collects none} See {@link Builder#metrics(int)}.
     */
    public int metricsMaxDataPoints() { return metricsMaxDataPoints; }

    /** {@return how long an attempt of a job with no {@link JobOptions#timeout()} of its own may run, or null} */
    public Duration timeout() { return timeout; }

    /** {@return the queue that gets a copy of each job that fails for good, or null for none} */
    public String deadLetterQueue() { return deadLetterQueue; }

    /** {@return the tracing hook of attempts, or null for none} */
    public Telemetry telemetry() { return telemetry; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof WorkerOptions)) return false;
        WorkerOptions x = (WorkerOptions) o;
        return concurrency == x.concurrency && lockDuration.equals(x.lockDuration)
                && lockRenewTime.equals(x.lockRenewTime) && stalledInterval.equals(x.stalledInterval)
                && stalledSweepInterval.equals(x.stalledSweepInterval) && maxStalledCount == x.maxStalledCount
                && maxStartedAttempts == x.maxStartedAttempts && drainDelay.equals(x.drainDelay)
                && closeTimeout.equals(x.closeTimeout) && autorun == x.autorun
                && Objects.equals(name, x.name) && prefix.equals(x.prefix) && connection == x.connection
                && Objects.equals(removeOnComplete, x.removeOnComplete) && Objects.equals(removeOnFail, x.removeOnFail)
                && backoffStrategy == x.backoffStrategy && executor == x.executor
                && virtualThreads == x.virtualThreads && checkEvictionPolicy == x.checkEvictionPolicy
                && objectMapper == x.objectMapper
                && clock.equals(x.clock) && limiterMax == x.limiterMax
                && Objects.equals(limiterDuration, x.limiterDuration)
                && maximumRateLimitDelay.equals(x.maximumRateLimitDelay)
                && metricsMaxDataPoints == x.metricsMaxDataPoints
                && Objects.equals(timeout, x.timeout) && Objects.equals(deadLetterQueue, x.deadLetterQueue)
                && telemetry == x.telemetry;
    }

    @Override
    public int hashCode() {
        return Objects.hash(concurrency, lockDuration, lockRenewTime, stalledInterval, stalledSweepInterval, maxStalledCount, drainDelay,
                autorun, name, prefix);
    }

    @Override
    public String toString() {
        return "WorkerOptions{concurrency=" + concurrency + ", lockDuration=" + lockDuration + ", lockRenewTime="
                + lockRenewTime + ", stalledInterval=" + stalledInterval + ", stalledSweepInterval=" + stalledSweepInterval
                + ", maxStalledCount=" + maxStalledCount
                + (maxStartedAttempts > 0 ? ", maxStartedAttempts=" + maxStartedAttempts : "")
                + ", drainDelay=" + drainDelay + ", closeTimeout=" + closeTimeout + ", autorun=" + autorun
                + ", name=" + name + ", prefix=" + prefix
                + ", removeOnComplete=" + removeOnComplete + ", removeOnFail=" + removeOnFail + ", virtualThreads="
                + virtualThreads + ", checkEvictionPolicy=" + checkEvictionPolicy
                + (limiterMax > 0 ? ", limiter=" + limiterMax + "/" + limiterDuration : "")
                + ", maximumRateLimitDelay=" + maximumRateLimitDelay
                + (metricsMaxDataPoints > 0 ? ", metrics=" + metricsMaxDataPoints : "")
                + (timeout != null ? ", timeout=" + timeout : "")
                + (deadLetterQueue != null ? ", deadLetterQueue=" + deadLetterQueue : "")
                + (telemetry != null ? ", telemetry=" + telemetry : "") + "}";
    }

    /**
     * A builder of {@link WorkerOptions}. Each setter checks its value at once and throws a
     * {@link ValidationException} naming the field; {@link #build()} checks the combinations. Not thread-safe.
     */
    public static final class Builder {
        private int concurrency = DEFAULT_CONCURRENCY;
        private Duration lockDuration = DEFAULT_LOCK_DURATION;
        private Duration lockRenewTime;
        private Duration stalledInterval = DEFAULT_STALLED_INTERVAL;
        private Duration stalledSweepInterval = DEFAULT_STALLED_SWEEP_INTERVAL;
        private int maxStalledCount = DEFAULT_MAX_STALLED_COUNT;
        private int maxStartedAttempts;
        private Duration drainDelay = DEFAULT_DRAIN_DELAY;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private boolean autorun = true;
        private String name;
        private String prefix = QueueKeys.DEFAULT_PREFIX;
        private Bull4jConnection connection;
        private KeepJobs removeOnComplete;
        private KeepJobs removeOnFail;
        private BackoffStrategy backoffStrategy;
        private ExecutorService executor;
        private boolean virtualThreads = true;
        private ObjectMapper objectMapper = Json.DEFAULT;
        private boolean checkEvictionPolicy = true;
        private Clock clock = Clock.systemUTC();
        private int limiterMax;
        private Duration limiterDuration;
        private Duration maximumRateLimitDelay = DEFAULT_MAXIMUM_RATE_LIMIT_DELAY;
        private int metricsMaxDataPoints;
        private Duration timeout;
        private String deadLetterQueue;
        private Telemetry telemetry;

        private Builder() {
        }

        /**
         * BullMQ's {@code limiter: {max, duration}}: at most {@code max} jobs start per {@code duration}, counted
         * on the queue's shared {@code limiter} key, so every worker of the queue with a limiter (bull4j's and
         * BullMQ's) shares one window. A global limit ({@link Queue#setGlobalRateLimit}) takes precedence for the
         * max; this duration takes precedence over the global one, as in BullMQ.
         *
         * @param max at least 1
         * @param duration the window, at least 1 ms
         * @return this builder
         */
        public Builder limiter(int max, Duration duration) {
            ValidationException.check(max >= 1, "limiter.max", "must be >= 1 (was " + max + ")");
            ValidationException.checkDuration(duration, "limiter.duration");
            ValidationException.checkExpiry(duration, "limiter.duration"); // the fetch's PEXPIRE of the window
            ValidationException.check(positive(duration) && duration.toMillis() >= 1, "limiter.duration",
                    "must be at least 1 ms (was " + duration + ")");
            this.limiterMax = max;
            this.limiterDuration = duration;
            return this;
        }

        /**
         * The longest a rate-limited worker waits before asking again, so that due delayed jobs still get promoted.
         * Default 30 s, as BullMQ.
         *
         * @param d positive
         * @return this builder
         */
        public Builder maximumRateLimitDelay(Duration d) {
            ValidationException.checkDuration(d, "maximumRateLimitDelay");
            ValidationException.check(positive(d), "maximumRateLimitDelay", "must be positive (was " + d + ")");
            this.maximumRateLimitDelay = d;
            return this;
        }

        /**
         * How many jobs this worker runs at once. Default {@value WorkerOptions#DEFAULT_CONCURRENCY}.
         *
         * @param concurrency at least 1
         * @return this builder
         */
        public Builder concurrency(int concurrency) {
            ValidationException.check(concurrency >= 1, "concurrency", "must be >= 1 (was " + concurrency + ")");
            this.concurrency = concurrency;
            return this;
        }

        /**
         * How long a job's lock lives without renewal. A job whose worker died is recovered (as stalled) after about this
         * long. Default 30 seconds ({@link WorkerOptions#DEFAULT_LOCK_DURATION}).
         *
         * @param d a positive duration
         * @return this builder
         */
        public Builder lockDuration(Duration d) {
            ValidationException.checkDuration(d, "lockDuration");
            ValidationException.checkExpiry(d, "lockDuration");
            ValidationException.check(positive(d), "lockDuration", "must be positive (was " + d + ")");
            this.lockDuration = d;
            return this;
        }

        /**
         * How often the held locks are renewed (one call for all of them). Default: half of the lock duration, also when
         * the lock duration changes later. {@link #build()} requires it to be shorter than the lock duration.
         *
         * @param d a positive duration
         * @return this builder
         */
        public Builder lockRenewTime(Duration d) {
            ValidationException.checkDuration(d, "lockRenewTime");
            ValidationException.check(positive(d), "lockRenewTime", "must be positive (was " + d + ")");
            this.lockRenewTime = d;
            return this;
        }

        /**
         * How often to look for stalled jobs (active jobs whose lock expired). The check is shared by all workers of the
         * queue: one of them runs it per interval. Default 30 seconds ({@link WorkerOptions#DEFAULT_STALLED_INTERVAL}).
         *
         * @param d a positive duration
         * @return this builder
         */
        public Builder stalledInterval(Duration d) {
            ValidationException.checkDuration(d, "stalledInterval");
            ValidationException.check(positive(d), "stalledInterval", "must be positive (was " + d + ")");
            this.stalledInterval = d;
            return this;
        }

        /**
         * How often, between two stalled passes, this worker sweeps for jobs the last pass marked as stalled
         * candidates and whose lock has expired since, and puts them back in wait at once (the next pass would, up to
         * a {@code stalledInterval} later). The sweep marks nothing and leaves the shared {@code stalled-check} key
         * alone, so BullMQ workers on the same queue see the usual protocol; when that key has expired it runs the
         * regular pass at once. A job of a dead worker is then recovered within about
         * {@code max(lockDuration, stalledInterval)} plus this interval. Cost: one script call per interval per worker,
         * O(size of the {@code stalled} set), which renewals keep to the jobs that have stopped renewing. Default 1
         * second ({@link WorkerOptions#DEFAULT_STALLED_SWEEP_INTERVAL}); {@link Duration#ZERO} turns it off (recovery
         * then takes up to {@code lockDuration} plus two {@code stalledInterval}s, as in BullMQ).
         *
         * @param d zero (off), or at least 1 ms
         * @return this builder
         */
        public Builder stalledSweepInterval(Duration d) {
            ValidationException.check(d != null && (d.isZero() || d.toMillis() >= 1), "stalledSweepInterval",
                    "must be zero (off) or at least 1 ms (was " + d + ")");
            this.stalledSweepInterval = d;
            return this;
        }

        /**
         * How many times a job may stall and be moved back to wait before it is failed instead. Default
         * {@value WorkerOptions#DEFAULT_MAX_STALLED_COUNT}.
         *
         * @param count zero or more
         * @return this builder
         */
        public Builder maxStalledCount(int count) {
            ValidationException.check(count >= 0, "maxStalledCount", "must be >= 0 (was " + count + ")");
            this.maxStalledCount = count;
            return this;
        }

        /**
         * How many times a job may be started (its {@link Job#attemptsStarted()}: attempts, stalls and rate-limit
         * returns all count) before this worker fails it without running it, with the failed reason
         * {@code "job started more than allowable limit"}; a job started that many times is not retried either.
         * BullMQ's {@code maxStartedAttempts}. Default 0: no limit.
         *
         * @param max zero (no limit) or more
         * @return this builder
         */
        public Builder maxStartedAttempts(int max) {
            ValidationException.check(max >= 0, "maxStartedAttempts", "must be >= 0 (was " + max + ")");
            this.maxStartedAttempts = max;
            return this;
        }

        /**
         * The longest single blocking wait for a job while the queue is empty; the worker then waits again.
         * With the command timeout, it also bounds how long {@link Worker#close()} waits for a fetch in flight.
         * Default 5 seconds
         * ({@link WorkerOptions#DEFAULT_DRAIN_DELAY}).
         *
         * @param d a positive duration
         * @return this builder
         */
        public Builder drainDelay(Duration d) {
            ValidationException.checkDuration(d, "drainDelay");
            ValidationException.check(positive(d), "drainDelay", "must be positive (was " + d + ")");
            this.drainDelay = d;
            return this;
        }

        /**
         * How long {@link Worker#close()} waits for running jobs before it interrupts them; a job that still does not
         * end within a short grace is let go (its lock is no longer renewed, so the stalled check recovers it).
         * {@code Duration.ZERO} interrupts at once. Default {@link #DEFAULT_CLOSE_TIMEOUT} (30 seconds).
         *
         * @param d zero or positive
         * @return this builder
         */
        public Builder closeTimeout(Duration d) {
            ValidationException.check(d != null && !d.isNegative(), "closeTimeout",
                    "must be zero or positive (was " + d + ")");
            this.closeTimeout = d;
            return this;
        }

        /**
         * Whether the worker's constructor starts processing; with {@code false}, call {@link Worker#run()}. Default
         * {@code true}.
         *
         * @param autorun whether to start in the constructor
         * @return this builder
         */
        public Builder autorun(boolean autorun) {
            this.autorun = autorun;
            return this;
        }

        /**
         * A name for the worker, stored as each job's {@code processedBy} and in the client name of its blocking
         * connection, as in BullMQ. Default: none.
         *
         * @param name a non-empty name, or null for none
         * @return this builder
         */
        public Builder name(String name) {
            ValidationException.check(name == null || !name.isEmpty(), "name", "must not be empty");
            this.name = name;
            return this;
        }

        /**
         * The key prefix; it must be the producers' prefix. On Redis Cluster use a hash tag such as {@code "{bull}"}.
         * Default {@code "bull"}.
         *
         * @param prefix a non-empty prefix
         * @return this builder
         */
        public Builder prefix(String prefix) {
            io.bull4j.internal.keys.QueueKeys.checkPrefix(prefix);
            this.prefix = prefix;
            return this;
        }

        /**
         * A connection to share, which the worker does not close; it also opens one dedicated connection on it for its
         * blocking fetch. Default: none, so the worker opens its own from {@code REDIS_URL} (else
         * {@code redis://localhost:6379}) and closes it on {@link Worker#close()}.
         *
         * @param connection a shared connection, or null for the worker's own
         * @return this builder
         */
        public Builder connection(Bull4jConnection connection) {
            this.connection = connection;
            return this;
        }

        /**
         * Which completed jobs to keep, for jobs that set no {@code removeOnComplete} of their own. Default: none, which
         * keeps them all.
         *
         * @param keep which jobs to keep, or null for all
         * @return this builder
         */
        public Builder removeOnComplete(KeepJobs keep) {
            this.removeOnComplete = keep;
            return this;
        }

        /**
         * Which failed jobs to keep, for jobs that set no {@code removeOnFail} of their own. Default: none, which keeps
         * them all.
         *
         * @param keep which jobs to keep, or null for all
         * @return this builder
         */
        public Builder removeOnFail(KeepJobs keep) {
            this.removeOnFail = keep;
            return this;
        }

        /**
         * Computes the wait before a retry for {@link Backoff#custom custom} backoff types. Default: none, so that a job
         * with a custom type fails on its first error.
         *
         * @param strategy the strategy, or null for none
         * @return this builder
         */
        public Builder backoffStrategy(BackoffStrategy strategy) {
            this.backoffStrategy = strategy;
            return this;
        }

        /**
         * The executor that runs processors. Default: none, so that bull4j runs each job on a virtual thread on Java 21+
         * (unless {@link #virtualThreads(boolean) virtualThreads(false)}) and on a pool of {@code concurrency} platform
         * threads otherwise, and shuts that down on close. bull4j never shuts down an executor it did not create. Each
         * task bull4j hands it runs ready jobs one after another until none is left; at most {@code concurrency} jobs
         * run at once (the tasks may now and then be one more, which finds nothing to do). When the executor refuses
         * a task while not shut down (a full bounded pool), bull4j asks again a few ms later.
         *
         * @param executor the executor, or null for bull4j's own
         * @return this builder
         */
        public Builder executor(ExecutorService executor) {
            this.executor = executor;
            return this;
        }

        /**
         * With the default executor: {@code true} (the default) runs each job on a virtual thread when the JVM has
         * them (Java 21+), {@code false} on a pool of {@code concurrency} platform threads, e.g. for processors
         * that hold a monitor across blocking I/O (which pins a carrier thread before Java 24). On Java 17-20
         * platform threads are used either way.
         *
         * @param virtualThreads whether the default executor uses virtual threads where the JVM has them
         * @return this builder
         */
        public Builder virtualThreads(boolean virtualThreads) {
            this.virtualThreads = virtualThreads;
            return this;
        }

        /**
         * The Jackson mapper for job data, results and progress; it is used as is. Default: bull4j's shared mapper,
         * which writes {@code java.time} values and {@code Optional} as ISO-8601 text and plain values, ignores
         * unknown properties (a Node producer may send fields a Java record lacks), and refuses an object whose
         * fields it cannot see rather than storing {@code {}}.
         *
         * @param mapper the mapper; not null
         * @return this builder
         */
        public Builder objectMapper(ObjectMapper mapper) {
            ValidationException.check(mapper != null, "objectMapper", "must not be null");
            this.objectMapper = mapper;
            return this;
        }

        /**
         * {@code true} (the default): on construction, read the Redis server's {@code maxmemory-policy} and log one
         * WARN per server and JVM when it is not {@code noeviction}, under which Redis may evict queue keys and lose
         * jobs. {@code false} skips the check, e.g. for a Redis whose eviction is known and accepted.
         *
         * @param check whether to check the policy
         * @return this builder
         */
        public Builder checkEvictionPolicy(boolean check) {
            this.checkEvictionPolicy = check;
            return this;
        }

        /**
         * BullMQ's {@code metrics: {maxDataPoints}}: each job this worker completes or fails for good is counted in
         * the queue's {@code metrics:completed} or {@code metrics:failed} hash, and per minute in its {@code :data}
         * list, which keeps the {@code maxDataPoints} newest minutes (one week is {@code 10080}), as BullMQ's workers
         * count them: bull4j and BullMQ workers with metrics on one queue add to the same data, which
         * {@link Queue#getMetrics} and BullMQ's {@code getMetrics} read. A retried attempt is not counted. Default:
         * no metrics.
         *
         * @param maxDataPoints the per-minute points to keep, at least 1; 0 turns metrics off
         * @return this builder
         */
        public Builder metrics(int maxDataPoints) {
            ValidationException.check(maxDataPoints >= 0, "metrics.maxDataPoints",
                    "must be >= 1, or 0 for no metrics (was " + maxDataPoints + ")");
            this.metricsMaxDataPoints = maxDataPoints;
            return this;
        }

        /**
         * The time source for timestamps and due times; for tests. Default {@link Clock#systemUTC()}.
         *
         * @param clock the clock; not null
         * @return this builder
         */
        public Builder clock(Clock clock) {
            ValidationException.check(clock != null, "clock", "must not be null");
            this.clock = clock;
            return this;
        }

        /**
         * The longest an attempt may run, for jobs without a {@link JobOptions.Builder#timeout} of their own (bull4j
         * only): when it elapses the job is cancelled (see {@link Cancellation}) and the attempt fails with "job timed
         * out after N ms", retried per its attempts. Default none.
         *
         * @param timeout at least 1 ms, or null for none
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            ValidationException.check(timeout == null || timeout.toMillis() >= 1, "timeout",
                    "must be at least 1 ms (was " + timeout + ")");
            this.timeout = timeout;
            return this;
        }

        /**
         * A dead-letter queue (bull4j only): when a job fails for good (its last attempt, or an
         * {@link UnrecoverableException}), a copy is added to this queue (same prefix) in the same Redis script as
         * the failure, so both are written or neither: a job with the same name and data, waiting there, whose
         * {@link Job#deadLetter()} tells where it came from and why it failed. The failed job itself stays as BullMQ
         * leaves it. {@link Queue#replayDeadLetter} moves one back. Default none.
         *
         * @param queueName the dead-letter queue's name, or null for none; not this worker's own queue
         * @return this builder
         */
        public Builder deadLetterQueue(String queueName) {
            ValidationException.check(queueName == null || !queueName.isBlank(), "deadLetterQueue",
                    "must not be blank (was \"" + queueName + "\")");
            ValidationException.check(queueName == null || queueName.indexOf(':') < 0, "deadLetterQueue",
                    "must not contain ':' (was \"" + queueName + "\")");
            this.deadLetterQueue = queueName;
            return this;
        }

        /**
         * Traces each attempt of a job in a consumer span ({@code process <queue>}) whose parent is the context its
         * producer stored in the job ({@code opts.tm}, by a bull4j queue or a BullMQ one with {@code telemetry}), as
         * BullMQ's worker does; the span is current on the job's thread while the processor runs. Use
         * {@code io.bull4j.otel.OpenTelemetryTracing} for OpenTelemetry. Default: none, nothing traced
         * (docs/observability.md).
         *
         * @param telemetry the hook, or null for none
         * @return this builder
         */
        public Builder telemetry(Telemetry telemetry) {
            this.telemetry = telemetry;
            return this;
        }

        /**
         * {@return the options} Checks the combinations: the lock renew time must be shorter than the lock duration.
         *
         * @throws ValidationException when it is not
         */
        public WorkerOptions build() {
            Duration renew = lockRenewTime != null ? lockRenewTime : lockDuration.dividedBy(2);
            ValidationException.check(renew.compareTo(lockDuration) < 0, "lockRenewTime",
                    "must be shorter than lockDuration " + lockDuration + " (was " + renew + ")");
            return new WorkerOptions(this);
        }

        private static boolean positive(Duration d) {
            return d != null && !d.isNegative() && !d.isZero();
        }
    }
}
