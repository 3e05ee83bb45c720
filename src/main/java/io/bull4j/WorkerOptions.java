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
    public static final int DEFAULT_CONCURRENCY = 1;
    public static final Duration DEFAULT_LOCK_DURATION = Duration.ofSeconds(30);
    public static final Duration DEFAULT_STALLED_INTERVAL = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_STALLED_COUNT = 1;
    public static final Duration DEFAULT_DRAIN_DELAY = Duration.ofSeconds(5);
    /** BullMQ's maximumRateLimitDelay: the longest a rate-limited worker waits before it asks again. */
    public static final Duration DEFAULT_MAXIMUM_RATE_LIMIT_DELAY = Duration.ofSeconds(30);
    public static final WorkerOptions DEFAULTS = builder().build();

    private final int concurrency;
    private final Duration lockDuration;
    private final Duration lockRenewTime;
    private final Duration explicitLockRenewTime; // null: derived from lockDuration, and re-derived by toBuilder
    private final Duration stalledInterval;
    private final int maxStalledCount;
    private final Duration drainDelay;
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

    private WorkerOptions(Builder b) {
        concurrency = b.concurrency;
        lockDuration = b.lockDuration;
        lockRenewTime = b.lockRenewTime != null ? b.lockRenewTime : b.lockDuration.dividedBy(2);
        explicitLockRenewTime = b.lockRenewTime;
        stalledInterval = b.stalledInterval;
        maxStalledCount = b.maxStalledCount;
        drainDelay = b.drainDelay;
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
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.concurrency = concurrency;
        b.lockDuration = lockDuration;
        b.lockRenewTime = explicitLockRenewTime;
        b.stalledInterval = stalledInterval;
        b.maxStalledCount = maxStalledCount;
        b.drainDelay = drainDelay;
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
        return b;
    }

    /** Jobs processed at once by this worker. */
    public int concurrency() { return concurrency; }
    /** How long a job's lock lives without renewal; a job whose worker dies is recovered after it. */
    public Duration lockDuration() { return lockDuration; }
    /** How often held locks are renewed (default lockDuration / 2). */
    public Duration lockRenewTime() { return lockRenewTime; }
    /** How often active jobs are checked for an expired lock. */
    public Duration stalledInterval() { return stalledInterval; }
    /** How often a job may stall before it is failed. */
    public int maxStalledCount() { return maxStalledCount; }
    /** The longest blocking wait for a job on an empty queue. */
    public Duration drainDelay() { return drainDelay; }
    /** Whether the constructor starts processing. */
    public boolean autorun() { return autorun; }
    /** Shown as the job's {@code processedBy} and in the worker's Redis client name; may be null. */
    public String name() { return name; }
    public String prefix() { return prefix; }
    /** null: the worker opens its own connection (REDIS_URL, else localhost) and closes it. */
    public Bull4jConnection connection() { return connection; }
    /** Applies to jobs that set no removeOnComplete of their own; null keeps them. */
    public KeepJobs removeOnComplete() { return removeOnComplete; }
    public KeepJobs removeOnFail() { return removeOnFail; }
    /** For custom backoff types; may be null. */
    public BackoffStrategy backoffStrategy() { return backoffStrategy; }
    /**
     * Runs processors; null for the default: a virtual thread per job on Java 21+ (see {@link #virtualThreads()}),
     * else a pool of concurrency platform threads.
     */
    public ExecutorService executor() { return executor; }
    /**
     * Whether the default executor uses a virtual thread per job when the JVM has them (Java 21+); default true.
     * Ignored when an {@link #executor()} is given.
     */
    public boolean virtualThreads() { return virtualThreads; }
    public ObjectMapper objectMapper() { return objectMapper; }
    /** Whether a WARN is logged (once per Redis server) when its maxmemory-policy is not noeviction. */
    public boolean checkEvictionPolicy() { return checkEvictionPolicy; }
    public Clock clock() { return clock; }
    /** The rate limiter's max jobs per window, 0 when the worker has no limiter. */
    public int limiterMax() { return limiterMax; }
    /** The rate limiter's window, null when the worker has no limiter. */
    public Duration limiterDuration() { return limiterDuration; }
    /** The longest a rate-limited worker waits before it asks again (so that due delayed jobs get promoted). */
    public Duration maximumRateLimitDelay() { return maximumRateLimitDelay; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof WorkerOptions)) return false;
        WorkerOptions x = (WorkerOptions) o;
        return concurrency == x.concurrency && lockDuration.equals(x.lockDuration)
                && lockRenewTime.equals(x.lockRenewTime) && stalledInterval.equals(x.stalledInterval)
                && maxStalledCount == x.maxStalledCount && drainDelay.equals(x.drainDelay) && autorun == x.autorun
                && Objects.equals(name, x.name) && prefix.equals(x.prefix) && connection == x.connection
                && Objects.equals(removeOnComplete, x.removeOnComplete) && Objects.equals(removeOnFail, x.removeOnFail)
                && backoffStrategy == x.backoffStrategy && executor == x.executor
                && virtualThreads == x.virtualThreads && checkEvictionPolicy == x.checkEvictionPolicy
                && objectMapper == x.objectMapper
                && clock.equals(x.clock) && limiterMax == x.limiterMax
                && Objects.equals(limiterDuration, x.limiterDuration)
                && maximumRateLimitDelay.equals(x.maximumRateLimitDelay);
    }

    @Override
    public int hashCode() {
        return Objects.hash(concurrency, lockDuration, lockRenewTime, stalledInterval, maxStalledCount, drainDelay,
                autorun, name, prefix);
    }

    @Override
    public String toString() {
        return "WorkerOptions{concurrency=" + concurrency + ", lockDuration=" + lockDuration + ", lockRenewTime="
                + lockRenewTime + ", stalledInterval=" + stalledInterval + ", maxStalledCount=" + maxStalledCount
                + ", drainDelay=" + drainDelay + ", autorun=" + autorun + ", name=" + name + ", prefix=" + prefix
                + ", removeOnComplete=" + removeOnComplete + ", removeOnFail=" + removeOnFail + ", virtualThreads="
                + virtualThreads + ", checkEvictionPolicy=" + checkEvictionPolicy
                + (limiterMax > 0 ? ", limiter=" + limiterMax + "/" + limiterDuration : "")
                + ", maximumRateLimitDelay=" + maximumRateLimitDelay + "}";
    }

    /** Not thread-safe. */
    public static final class Builder {
        private int concurrency = DEFAULT_CONCURRENCY;
        private Duration lockDuration = DEFAULT_LOCK_DURATION;
        private Duration lockRenewTime;
        private Duration stalledInterval = DEFAULT_STALLED_INTERVAL;
        private int maxStalledCount = DEFAULT_MAX_STALLED_COUNT;
        private Duration drainDelay = DEFAULT_DRAIN_DELAY;
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

        private Builder() {
        }

        /**
         * BullMQ's {@code limiter: {max, duration}}: at most {@code max} jobs start per {@code duration}, counted
         * on the queue's shared {@code limiter} key, so every worker of the queue with a limiter (bull4j's and
         * BullMQ's) shares one window. A global limit ({@link Queue#setGlobalRateLimit}) takes precedence for the
         * max; this duration takes precedence over the global one, as in BullMQ.
         */
        public Builder limiter(int max, Duration duration) {
            ValidationException.check(max >= 1, "limiter.max", "must be >= 1 (was " + max + ")");
            ValidationException.check(positive(duration) && duration.toMillis() >= 1, "limiter.duration",
                    "must be at least 1 ms (was " + duration + ")");
            this.limiterMax = max;
            this.limiterDuration = duration;
            return this;
        }

        /** The longest a rate-limited worker waits before asking again; default 30 s, as BullMQ. */
        public Builder maximumRateLimitDelay(Duration d) {
            ValidationException.check(positive(d), "maximumRateLimitDelay", "must be positive (was " + d + ")");
            this.maximumRateLimitDelay = d;
            return this;
        }

        public Builder concurrency(int concurrency) {
            ValidationException.check(concurrency >= 1, "concurrency", "must be >= 1 (was " + concurrency + ")");
            this.concurrency = concurrency;
            return this;
        }

        public Builder lockDuration(Duration d) {
            ValidationException.check(positive(d), "lockDuration", "must be positive (was " + d + ")");
            this.lockDuration = d;
            return this;
        }

        public Builder lockRenewTime(Duration d) {
            ValidationException.check(positive(d), "lockRenewTime", "must be positive (was " + d + ")");
            this.lockRenewTime = d;
            return this;
        }

        public Builder stalledInterval(Duration d) {
            ValidationException.check(positive(d), "stalledInterval", "must be positive (was " + d + ")");
            this.stalledInterval = d;
            return this;
        }

        public Builder maxStalledCount(int count) {
            ValidationException.check(count >= 0, "maxStalledCount", "must be >= 0 (was " + count + ")");
            this.maxStalledCount = count;
            return this;
        }

        public Builder drainDelay(Duration d) {
            ValidationException.check(positive(d), "drainDelay", "must be positive (was " + d + ")");
            this.drainDelay = d;
            return this;
        }

        public Builder autorun(boolean autorun) {
            this.autorun = autorun;
            return this;
        }

        public Builder name(String name) {
            ValidationException.check(name == null || !name.isEmpty(), "name", "must not be empty");
            this.name = name;
            return this;
        }

        public Builder prefix(String prefix) {
            ValidationException.check(prefix != null && !prefix.isEmpty(), "prefix", "must not be empty");
            this.prefix = prefix;
            return this;
        }

        public Builder connection(Bull4jConnection connection) {
            this.connection = connection;
            return this;
        }

        public Builder removeOnComplete(KeepJobs keep) {
            this.removeOnComplete = keep;
            return this;
        }

        public Builder removeOnFail(KeepJobs keep) {
            this.removeOnFail = keep;
            return this;
        }

        public Builder backoffStrategy(BackoffStrategy strategy) {
            this.backoffStrategy = strategy;
            return this;
        }

        /** Runs processors. bull4j never shuts down an executor it did not create. */
        public Builder executor(ExecutorService executor) {
            this.executor = executor;
            return this;
        }

        /**
         * With the default executor: {@code true} (the default) runs each job on a virtual thread when the JVM has
         * them (Java 21+), {@code false} on a pool of {@code concurrency} platform threads, e.g. for processors
         * that hold a monitor across blocking I/O (which pins a carrier thread before Java 24). On Java 17-20
         * platform threads are used either way.
         */
        public Builder virtualThreads(boolean virtualThreads) {
            this.virtualThreads = virtualThreads;
            return this;
        }

        public Builder objectMapper(ObjectMapper mapper) {
            this.objectMapper = Objects.requireNonNull(mapper, "objectMapper");
            return this;
        }

        /**
         * {@code true} (the default): on construction, read the Redis server's {@code maxmemory-policy} and log one
         * WARN per server and JVM when it is not {@code noeviction}, under which Redis may evict queue keys and lose
         * jobs. {@code false} skips the check, e.g. for a Redis whose eviction is known and accepted.
         */
        public Builder checkEvictionPolicy(boolean check) {
            this.checkEvictionPolicy = check;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

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
