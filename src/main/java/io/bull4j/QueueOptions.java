package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;

import java.time.Clock;
import java.util.Objects;

/**
 * Options of a {@link Queue}. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code QueueOptions.builder().prefix("{app}").defaultJobOptions(JobOptions.builder().attempts(3).build()).build()}</pre>
 */
public final class QueueOptions {
    /** The default {@link Builder#maxLenEvents(int) maxLenEvents}: about 10,000 events, as in BullMQ. */
    public static final int DEFAULT_MAX_LEN_EVENTS = 10_000;
    /** All options at their defaults. */
    public static final QueueOptions DEFAULTS = builder().build();

    private final String prefix;
    private final Bull4jConnection connection;
    private final JobOptions defaultJobOptions;
    private final int maxLenEvents;
    private final ObjectMapper objectMapper;
    private final boolean checkEvictionPolicy;
    private final Clock clock;
    private final boolean skipMetasUpdate;
    private final Telemetry telemetry;

    private QueueOptions(Builder b) {
        prefix = b.prefix;
        connection = b.connection;
        defaultJobOptions = b.defaultJobOptions;
        maxLenEvents = b.maxLenEvents;
        objectMapper = b.objectMapper;
        checkEvictionPolicy = b.checkEvictionPolicy;
        clock = b.clock;
        skipMetasUpdate = b.skipMetasUpdate;
        telemetry = b.telemetry;
    }

    /** {@return a builder with every option at its default} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these options, to change some of them} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.prefix = prefix;
        b.connection = connection;
        b.defaultJobOptions = defaultJobOptions;
        b.maxLenEvents = maxLenEvents;
        b.objectMapper = objectMapper;
        b.checkEvictionPolicy = checkEvictionPolicy;
        b.clock = clock;
        b.skipMetasUpdate = skipMetasUpdate;
        b.telemetry = telemetry;
        return b;
    }

    /** {@return the key prefix of the queue} */
    public String prefix() { return prefix; }
    /** {@return the shared connection, or null when the queue opens (and closes) its own} */
    public Bull4jConnection connection() { return connection; }
    /** {@return the options for every option a job does not set} */
    public JobOptions defaultJobOptions() { return defaultJobOptions; }
    /** {@return the approximate cap of the events stream ({@code streams.events.maxLen} in BullMQ)} */
    public int maxLenEvents() { return maxLenEvents; }
    /** {@return the Jackson mapper for job data} */
    public ObjectMapper objectMapper() { return objectMapper; }
    /** {@return whether a WARN is logged (once per Redis server) when its maxmemory-policy is not noeviction} */
    public boolean checkEvictionPolicy() { return checkEvictionPolicy; }
    /** {@return the time source for timestamps} */
    public Clock clock() { return clock; }
    /**
     * {@return whether the queue leaves the {@code meta} hash alone when it opens (BullMQ's {@code skipMetasUpdate})}
     */
    public boolean skipMetasUpdate() { return skipMetasUpdate; }
    /** {@return the tracing hook of adds, or null for none} */
    public Telemetry telemetry() { return telemetry; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof QueueOptions)) return false;
        QueueOptions x = (QueueOptions) o;
        return prefix.equals(x.prefix) && connection == x.connection && defaultJobOptions.equals(x.defaultJobOptions)
                && maxLenEvents == x.maxLenEvents && objectMapper == x.objectMapper && clock.equals(x.clock)
                && skipMetasUpdate == x.skipMetasUpdate && checkEvictionPolicy == x.checkEvictionPolicy
                && telemetry == x.telemetry;
    }

    @Override
    public int hashCode() {
        return Objects.hash(prefix, defaultJobOptions, maxLenEvents, skipMetasUpdate, checkEvictionPolicy);
    }

    @Override
    public String toString() {
        return "QueueOptions{prefix=" + prefix + ", connection=" + (connection == null ? "own" : "shared")
                + ", defaultJobOptions=" + defaultJobOptions + ", maxLenEvents=" + maxLenEvents
                + ", checkEvictionPolicy=" + checkEvictionPolicy + (skipMetasUpdate ? ", skipMetasUpdate" : "")
                + (telemetry != null ? ", telemetry=" + telemetry : "") + "}";
    }

    /**
     * A builder of {@link QueueOptions}. Each setter checks its value at once and throws a {@link ValidationException}
     * naming the field. Not thread-safe.
     */
    public static final class Builder {
        private String prefix = QueueKeys.DEFAULT_PREFIX;
        private Bull4jConnection connection;
        private JobOptions defaultJobOptions = JobOptions.DEFAULTS;
        private int maxLenEvents = DEFAULT_MAX_LEN_EVENTS;
        private ObjectMapper objectMapper = Json.DEFAULT;
        private boolean checkEvictionPolicy = true;
        private Clock clock = Clock.systemUTC();
        private boolean skipMetasUpdate;
        private Telemetry telemetry;

        private Builder() {
        }

        /**
         * The key prefix; workers and other producers of the queue must use the same one. On Redis Cluster use a hash
         * tag such as {@code "{bull}"}. Default {@code "bull"}.
         *
         * @param prefix a non-empty prefix
         * @return this builder
         */
        public Builder prefix(String prefix) {
            this.prefix = QueueKeys.checkPrefix(prefix);
            return this;
        }

        /**
         * A connection to share, which the queue does not close. Default: none, so the queue opens its own from
         * {@code REDIS_URL} (else {@code redis://localhost:6379}) and closes it on {@link Queue#close()}.
         *
         * @param connection a shared connection, or null for the queue's own
         * @return this builder
         */
        public Builder connection(Bull4jConnection connection) {
            this.connection = connection;
            return this;
        }

        /**
         * The options for every option a job does not set itself. Default {@link JobOptions#DEFAULTS} (none set).
         *
         * @param options the defaults; not null, and without a job id (BullMQ ignores one there; here it is refused,
         *     as every add without an id of its own would otherwise return the first job again)
         * @return this builder
         */
        public Builder defaultJobOptions(JobOptions options) {
            ValidationException.check(options != null, "defaultJobOptions", "must not be null");
            ValidationException.check(options.jobId() == null, "defaultJobOptions.jobId",
                    "a job id is set per job, never as a default (was " + options.jobId() + ")");
            this.defaultJobOptions = options;
            return this;
        }

        /**
         * The approximate cap of the events stream. The queue stores it in its {@code meta} hash, where every script
         * (bull4j's and BullMQ's) reads it when it trims the stream. Default
         * {@value QueueOptions#DEFAULT_MAX_LEN_EVENTS}.
         *
         * @param maxLen zero or more
         * @return this builder
         */
        public Builder maxLenEvents(int maxLen) {
            ValidationException.check(maxLen >= 0, "maxLenEvents", "must be >= 0 (was " + maxLen + ")");
            this.maxLenEvents = maxLen;
            return this;
        }

        /**
         * The Jackson mapper for job data; it is used as is. Default: bull4j's shared mapper, as described at
         * {@link WorkerOptions.Builder#objectMapper(ObjectMapper)}.
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
         * With {@code true} the queue does not write the {@code meta} hash when it opens: {@code meta.version} and
         * {@code opts.maxLenEvents} stay as the queue's producers and workers wrote them. For a queue opened only to
         * read (counts, listings, dashboards, metrics), as BullMQ's {@code skipMetasUpdate}. Adding jobs still
         * works: the scripts write the stream cap they need when it is missing. Default {@code false}.
         *
         * @param skip whether to leave the {@code meta} hash alone
         * @return this builder
         */
        public Builder skipMetasUpdate(boolean skip) {
            this.skipMetasUpdate = skip;
            return this;
        }

        /**
         * Traces each {@link Queue#add add} and {@link Queue#addBulk addBulk} in a producer span and stores the
         * span's context in the job ({@code opts.tm}, as BullMQ's {@code telemetry} option does), so that the
         * worker's span, Java or Node, continues the trace. Use {@code io.bull4j.otel.OpenTelemetryTracing} for
         * OpenTelemetry. Default: none, nothing traced or stored (docs/observability.md).
         *
         * @param telemetry the hook, or null for none
         * @return this builder
         */
        public Builder telemetry(Telemetry telemetry) {
            this.telemetry = telemetry;
            return this;
        }

        /** {@return the options} */
        public QueueOptions build() {
            return new QueueOptions(this);
        }
    }
}
