package io.bull4j;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of a {@link Bull4jConnection} that bull4j opens ({@link Bull4jConnection#create(String, ConnectionOptions)},
 * {@link Bull4jConnection#createCluster(java.util.List, ConnectionOptions)}). Immutable and thread-safe; build with
 * {@link #builder()}.
 *
 * <pre>{@code
 * Bull4jConnection redis = Bull4jConnection.create("redis://localhost:6379", ConnectionOptions.builder()
 *         .commandTimeout(Duration.ofSeconds(5))
 *         .reconnectDelay(Duration.ofMillis(50), Duration.ofSeconds(1))
 *         .build());
 * }</pre>
 */
public final class ConnectionOptions {
    /**
     * The default {@link Builder#commandTimeout(Duration) commandTimeout}: how long any Redis call may take before a
     * {@link RedisOutcomeUnknownException}, 10 seconds.
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);
    /**
     * The default shortest wait before a reconnect try, 50 ms: the first tries wait this long, until the exponential
     * delay (see {@link Builder#reconnectDelay(Duration, Duration)}) grows past it.
     */
    public static final Duration DEFAULT_RECONNECT_DELAY_MIN = Duration.ofMillis(50);
    /**
     * The default longest wait between reconnect tries, 1 second: short, so that calls work again about a second after Redis is
     * back, however long it was away (Lettuce's own default grows to 30 s).
     */
    public static final Duration DEFAULT_RECONNECT_DELAY_MAX = Duration.ofSeconds(1);
    /** All options at their defaults. */
    public static final ConnectionOptions DEFAULTS = builder().build();

    private final Duration commandTimeout;
    private final Duration reconnectDelayMin;
    private final Duration reconnectDelayMax;

    private ConnectionOptions(Builder b) {
        commandTimeout = b.commandTimeout;
        reconnectDelayMin = b.reconnectDelayMin;
        reconnectDelayMax = b.reconnectDelayMax;
    }

    /** {@return a builder with every option at its default} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these options, to change some of them} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.commandTimeout = commandTimeout;
        b.reconnectDelayMin = reconnectDelayMin;
        b.reconnectDelayMax = reconnectDelayMax;
        return b;
    }

    /** {@return how long any Redis call, and connecting, may take} */
    public Duration commandTimeout() { return commandTimeout; }
    /** {@return the shortest wait before a reconnect try} */
    public Duration reconnectDelayMin() { return reconnectDelayMin; }
    /** {@return the longest wait before a reconnect try} */
    public Duration reconnectDelayMax() { return reconnectDelayMax; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ConnectionOptions)) return false;
        ConnectionOptions x = (ConnectionOptions) o;
        return commandTimeout.equals(x.commandTimeout) && reconnectDelayMin.equals(x.reconnectDelayMin)
                && reconnectDelayMax.equals(x.reconnectDelayMax);
    }

    @Override
    public int hashCode() {
        return Objects.hash(commandTimeout, reconnectDelayMin, reconnectDelayMax);
    }

    @Override
    public String toString() {
        return "ConnectionOptions{commandTimeout=" + commandTimeout + ", reconnectDelay=" + reconnectDelayMin + ".."
                + reconnectDelayMax + "}";
    }

    /**
     * A builder of {@link ConnectionOptions}. Each setter checks its value at once and throws a
     * {@link ValidationException} naming the field. Not thread-safe.
     */
    public static final class Builder {
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration reconnectDelayMin = DEFAULT_RECONNECT_DELAY_MIN;
        private Duration reconnectDelayMax = DEFAULT_RECONNECT_DELAY_MAX;

        private Builder() {
        }

        /** The longest time Lettuce's settings take: its connect timeout is an int of milliseconds (24.8 days). */
        private static final Duration LONGEST = Duration.ofMillis(Integer.MAX_VALUE);

        private static boolean inRange(Duration d) {
            return d != null && d.compareTo(Duration.ofMillis(1)) >= 0 && d.compareTo(LONGEST) <= 0;
        }

        /**
         * How long any Redis call may take. A call that gets no answer in time throws a
         * {@link RedisOutcomeUnknownException} whose {@link RedisException#isTimeout()} is true; its command never
         * takes effect after that. It also bounds each try to open a TCP connection. Default
         * {@link #DEFAULT_COMMAND_TIMEOUT} (10 s).
         *
         * @param timeout at least 1 ms
         * @return this builder
         * @throws ValidationException ({@code "commandTimeout"}) when the timeout is null, under 1 ms, or longer
         *         than an int of milliseconds (about 24.8 days)
         */
        public Builder commandTimeout(Duration timeout) {
            ValidationException.check(inRange(timeout), "commandTimeout",
                    "must be at least 1 ms and at most " + LONGEST + " (was " + timeout + ")");
            this.commandTimeout = timeout;
            return this;
        }

        /**
         * The exponential backoff between reconnect tries after a connection breaks: before the n-th try Lettuce
         * waits 2<sup>n-1</sup> ms, but never less than {@code min} nor more than {@code max} (both counted in whole
         * milliseconds). With the defaults, 50 ms for the first six tries, then 64, 128, 256 and 512 ms, then 1 s
         * for every further try. Default {@link #DEFAULT_RECONNECT_DELAY_MIN} (50 ms) to
         * {@link #DEFAULT_RECONNECT_DELAY_MAX} (1 s).
         *
         * @param min the shortest wait; at least 1 ms
         * @param max the longest wait; at least {@code min}
         * @return this builder
         * @throws ValidationException ({@code "reconnectDelayMin"}) when {@code min} is null or under 1 ms, or
         *         ({@code "reconnectDelayMax"}) when {@code max} is null or shorter than {@code min}; either when
         *         longer than an int of milliseconds (about 24.8 days)
         */
        public Builder reconnectDelay(Duration min, Duration max) {
            ValidationException.check(inRange(min), "reconnectDelayMin",
                    "must be at least 1 ms and at most " + LONGEST + " (was " + min + ")");
            ValidationException.check(max != null && max.compareTo(min) >= 0 && inRange(max), "reconnectDelayMax",
                    "must be at least reconnectDelayMin " + min + " and at most " + LONGEST + " (was " + max + ")");
            this.reconnectDelayMin = min;
            this.reconnectDelayMax = max;
            return this;
        }

        /** {@return the options} */
        public ConnectionOptions build() {
            return new ConnectionOptions(this);
        }
    }
}
