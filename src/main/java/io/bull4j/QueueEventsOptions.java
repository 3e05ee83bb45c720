package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Options of a {@link QueueEvents}, with BullMQ's defaults. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code QueueEventsOptions.builder().connection(redis).lastEventId(savedId).build()}</pre>
 */
public final class QueueEventsOptions {
    /** Only events written after the reader starts. */
    public static final String NEW_EVENTS_ONLY = "$";
    /** Longest single {@code XREAD BLOCK}, as BullMQ's {@code blockingTimeout}. */
    public static final Duration DEFAULT_BLOCK_TIMEOUT = Duration.ofSeconds(10);
    public static final QueueEventsOptions DEFAULTS = builder().build();

    private static final Pattern STREAM_ID = Pattern.compile("\\d+(-\\d+)?");

    private final String prefix;
    private final Bull4jConnection connection;
    private final String lastEventId;
    private final Duration blockTimeout;
    private final boolean autorun;
    private final ObjectMapper objectMapper;

    private QueueEventsOptions(Builder b) {
        prefix = b.prefix;
        connection = b.connection;
        lastEventId = b.lastEventId;
        blockTimeout = b.blockTimeout;
        autorun = b.autorun;
        objectMapper = b.objectMapper;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.prefix = prefix;
        b.connection = connection;
        b.lastEventId = lastEventId;
        b.blockTimeout = blockTimeout;
        b.autorun = autorun;
        b.objectMapper = objectMapper;
        return b;
    }

    public String prefix() { return prefix; }
    /** null: the reader opens its own connection (REDIS_URL, else localhost) and closes it. */
    public Bull4jConnection connection() { return connection; }
    /** Deliver the events after this stream id; {@link #NEW_EVENTS_ONLY} ({@code "$"}) by default. */
    public String lastEventId() { return lastEventId; }
    public Duration blockTimeout() { return blockTimeout; }
    /** Start reading in the constructor (default); else call {@link QueueEvents#run()}. */
    public boolean autorun() { return autorun; }
    /** Reads {@link QueueEvent#returnValue(Class)} and {@link QueueEvent#progress()}. */
    public ObjectMapper objectMapper() { return objectMapper; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof QueueEventsOptions)) return false;
        QueueEventsOptions x = (QueueEventsOptions) o;
        return prefix.equals(x.prefix) && connection == x.connection && lastEventId.equals(x.lastEventId)
                && blockTimeout.equals(x.blockTimeout) && autorun == x.autorun && objectMapper == x.objectMapper;
    }

    @Override
    public int hashCode() {
        return Objects.hash(prefix, lastEventId, blockTimeout, autorun);
    }

    @Override
    public String toString() {
        return "QueueEventsOptions{prefix=" + prefix + ", connection=" + (connection == null ? "own" : "shared")
                + ", lastEventId=" + lastEventId + ", blockTimeout=" + blockTimeout + ", autorun=" + autorun + "}";
    }

    /** Not thread-safe. */
    public static final class Builder {
        private String prefix = QueueKeys.DEFAULT_PREFIX;
        private Bull4jConnection connection;
        private String lastEventId = NEW_EVENTS_ONLY;
        private Duration blockTimeout = DEFAULT_BLOCK_TIMEOUT;
        private boolean autorun = true;
        private ObjectMapper objectMapper = Json.DEFAULT;

        private Builder() {
        }

        public Builder prefix(String prefix) {
            io.bull4j.internal.keys.QueueKeys.checkPrefix(prefix);
            this.prefix = prefix;
            return this;
        }

        /** Share a connection; the reader still opens one more, from the same client, for its blocking read. */
        public Builder connection(Bull4jConnection connection) {
            this.connection = connection;
            return this;
        }

        /**
         * Where to start: {@code "$"} for new events only, or a stream id ({@code "0"} replays the whole stream,
         * {@link QueueEvent#id()} of the last event handled resumes after it).
         */
        public Builder lastEventId(String id) {
            ValidationException.check(id != null && (id.equals(NEW_EVENTS_ONLY) || STREAM_ID.matcher(id).matches()),
                    "lastEventId", "must be \"$\" or a stream id such as \"1700000000000-0\" (was " + id + ")");
            this.lastEventId = id;
            return this;
        }

        /** The longest single blocking read; close() does not wait for it. */
        public Builder blockTimeout(Duration d) {
            ValidationException.check(d != null && d.toMillis() >= 1, "blockTimeout",
                    "must be at least 1 ms (was " + d + ")");
            this.blockTimeout = d;
            return this;
        }

        public Builder autorun(boolean autorun) {
            this.autorun = autorun;
            return this;
        }

        public Builder objectMapper(ObjectMapper mapper) {
            this.objectMapper = Objects.requireNonNull(mapper, "objectMapper");
            return this;
        }

        public QueueEventsOptions build() {
            return new QueueEventsOptions(this);
        }
    }
}
