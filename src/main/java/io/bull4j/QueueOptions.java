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
    public static final int DEFAULT_MAX_LEN_EVENTS = 10_000;
    public static final QueueOptions DEFAULTS = builder().build();

    private final String prefix;
    private final Bull4jConnection connection;
    private final JobOptions defaultJobOptions;
    private final int maxLenEvents;
    private final ObjectMapper objectMapper;
    private final Clock clock;
    private final boolean skipMetasUpdate;

    private QueueOptions(Builder b) {
        prefix = b.prefix;
        connection = b.connection;
        defaultJobOptions = b.defaultJobOptions;
        maxLenEvents = b.maxLenEvents;
        objectMapper = b.objectMapper;
        clock = b.clock;
        skipMetasUpdate = b.skipMetasUpdate;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.prefix = prefix;
        b.connection = connection;
        b.defaultJobOptions = defaultJobOptions;
        b.maxLenEvents = maxLenEvents;
        b.objectMapper = objectMapper;
        b.clock = clock;
        b.skipMetasUpdate = skipMetasUpdate;
        return b;
    }

    public String prefix() { return prefix; }
    /** null: the queue opens its own connection (REDIS_URL, else localhost) and closes it. */
    public Bull4jConnection connection() { return connection; }
    public JobOptions defaultJobOptions() { return defaultJobOptions; }
    /** The approximate cap of the events stream ({@code streams.events.maxLen} in BullMQ). */
    public int maxLenEvents() { return maxLenEvents; }
    public ObjectMapper objectMapper() { return objectMapper; }
    public Clock clock() { return clock; }
    /** Whether the queue leaves the {@code meta} hash alone when it opens (BullMQ's {@code skipMetasUpdate}). */
    public boolean skipMetasUpdate() { return skipMetasUpdate; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof QueueOptions)) return false;
        QueueOptions x = (QueueOptions) o;
        return prefix.equals(x.prefix) && connection == x.connection && defaultJobOptions.equals(x.defaultJobOptions)
                && maxLenEvents == x.maxLenEvents && objectMapper == x.objectMapper && clock.equals(x.clock)
                && skipMetasUpdate == x.skipMetasUpdate;
    }

    @Override
    public int hashCode() {
        return Objects.hash(prefix, defaultJobOptions, maxLenEvents, skipMetasUpdate);
    }

    @Override
    public String toString() {
        return "QueueOptions{prefix=" + prefix + ", connection=" + (connection == null ? "own" : "shared")
                + ", defaultJobOptions=" + defaultJobOptions + ", maxLenEvents=" + maxLenEvents
                + (skipMetasUpdate ? ", skipMetasUpdate" : "") + "}";
    }

    /** Not thread-safe. */
    public static final class Builder {
        private String prefix = QueueKeys.DEFAULT_PREFIX;
        private Bull4jConnection connection;
        private JobOptions defaultJobOptions = JobOptions.DEFAULTS;
        private int maxLenEvents = DEFAULT_MAX_LEN_EVENTS;
        private ObjectMapper objectMapper = Json.DEFAULT;
        private Clock clock = Clock.systemUTC();
        private boolean skipMetasUpdate;

        private Builder() {
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

        public Builder defaultJobOptions(JobOptions options) {
            this.defaultJobOptions = Objects.requireNonNull(options, "defaultJobOptions");
            return this;
        }

        public Builder maxLenEvents(int maxLen) {
            ValidationException.check(maxLen >= 0, "maxLenEvents", "must be >= 0 (was " + maxLen + ")");
            this.maxLenEvents = maxLen;
            return this;
        }

        public Builder objectMapper(ObjectMapper mapper) {
            this.objectMapper = Objects.requireNonNull(mapper, "objectMapper");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * With {@code true} the queue does not write the {@code meta} hash when it opens: {@code meta.version} and
         * {@code opts.maxLenEvents} stay as the queue's producers and workers wrote them. For a queue opened only to
         * read (counts, listings, dashboards, metrics), as BullMQ's {@code skipMetasUpdate}. Adding jobs still
         * works: the scripts write the stream cap they need when it is missing.
         */
        public Builder skipMetasUpdate(boolean skip) {
            this.skipMetasUpdate = skip;
            return this;
        }

        public QueueOptions build() {
            return new QueueOptions(this);
        }
    }
}
