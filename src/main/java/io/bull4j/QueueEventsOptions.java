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
    /**
     * The {@link Builder#lastEventId(String) lastEventId} that delivers only events written after the reader starts.
     */
    public static final String NEW_EVENTS_ONLY = "$";
    /**
     * The default {@link Builder#blockTimeout(Duration) blockTimeout}: 10 seconds, as BullMQ's {@code blockingTimeout}.
     */
    public static final Duration DEFAULT_BLOCK_TIMEOUT = Duration.ofSeconds(10);
    /** All options at their defaults. */
    public static final QueueEventsOptions DEFAULTS = builder().build();

    private static final Pattern STREAM_ID = Pattern.compile("\\d+(-\\d+)?");

    /** Digits, or digits-digits, each part an unsigned 64-bit number (what Redis takes). */
    private static boolean isStreamId(String id) {
        if (!STREAM_ID.matcher(id).matches()) {
            return false;
        }
        try {
            for (String part : id.split("-")) {
                Long.parseUnsignedLong(part);
            }
            return true;
        } catch (NumberFormatException tooLarge) {
            return false;
        }
    }

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

    /** {@return a builder with every option at its default} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these options, to change some of them} */
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

    /** {@return the key prefix of the queue} */
    public String prefix() { return prefix; }
    /** {@return the shared connection, or null when the reader opens (and closes) its own} */
    public Bull4jConnection connection() { return connection; }
    /** {@return the stream id after which events are delivered; {@link #NEW_EVENTS_ONLY} by default} */
    public String lastEventId() { return lastEventId; }
    /** {@return the longest single blocking read of the stream} */
    public Duration blockTimeout() { return blockTimeout; }
    /** {@return whether the constructor starts reading; else call {@link QueueEvents#run()}} */
    public boolean autorun() { return autorun; }
    /** {@return the mapper that reads {@link QueueEvent#returnValue(Class)} and {@link QueueEvent#progress()}} */
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

    /**
     * A builder of {@link QueueEventsOptions}. Each setter checks its value at once and throws a
     * {@link ValidationException} naming the field. Not thread-safe.
     */
    public static final class Builder {
        private String prefix = QueueKeys.DEFAULT_PREFIX;
        private Bull4jConnection connection;
        private String lastEventId = NEW_EVENTS_ONLY;
        private Duration blockTimeout = DEFAULT_BLOCK_TIMEOUT;
        private boolean autorun = true;
        private ObjectMapper objectMapper = Json.DEFAULT;

        private Builder() {
        }

        /**
         * The key prefix of the queue. Default {@code "bull"}.
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
         * A connection to share, which the reader does not close; it still opens one more, from the same client, for its
         * blocking read. Default: none, so the reader opens its own from {@code REDIS_URL} (else
         * {@code redis://localhost:6379}) and closes it on {@link QueueEvents#close()}.
         *
         * @param connection a shared connection, or null for the reader's own
         * @return this builder
         */
        public Builder connection(Bull4jConnection connection) {
            this.connection = connection;
            return this;
        }

        /**
         * Where to start: {@code "$"} for new events only, or a stream id ({@code "0"} replays the whole stream, and
         * {@link QueueEvent#id()} of the last event handled resumes after it). Default {@code "$"}
         * ({@link QueueEventsOptions#NEW_EVENTS_ONLY}).
         *
         * @param id {@code "$"} or a stream id such as {@code "1700000000000-0"}
         * @return this builder
         */
        public Builder lastEventId(String id) {
            ValidationException.check(id != null && (id.equals(NEW_EVENTS_ONLY) || isStreamId(id)),
                    "lastEventId", "must be \"$\" or a stream id such as \"1700000000000-0\", each part at most "
                            + "2^64-1 (was " + id + ")");
            this.lastEventId = id;
            return this;
        }

        /**
         * The longest single blocking read; {@link QueueEvents#close()} does not wait for it. Default 10 seconds
         * ({@link QueueEventsOptions#DEFAULT_BLOCK_TIMEOUT}).
         *
         * @param d at least 1 ms
         * @return this builder
         */
        public Builder blockTimeout(Duration d) {
            ValidationException.check(d != null && d.toMillis() >= 1, "blockTimeout",
                    "must be at least 1 ms (was " + d + ")");
            this.blockTimeout = d;
            return this;
        }

        /**
         * Whether the constructor starts reading; with {@code false}, call {@link QueueEvents#run()}. Default
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
         * The Jackson mapper that reads return values and progress. Default: bull4j's shared mapper (see
         * {@link WorkerOptions.Builder#objectMapper(ObjectMapper)}).
         *
         * @param mapper the mapper; not null
         * @return this builder
         */
        public Builder objectMapper(ObjectMapper mapper) {
            ValidationException.check(mapper != null, "objectMapper", "must not be null");
            this.objectMapper = mapper;
            return this;
        }

        /** {@return the options} */
        public QueueEventsOptions build() {
            return new QueueEventsOptions(this);
        }
    }
}
