package io.bull4j;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of a {@link Bull4jConnection} that bull4j opens. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * Bull4jConnection redis = Bull4jConnection.create("redis://localhost:6379", ConnectionOptions.builder()
 *         .commandTimeout(Duration.ofSeconds(5))
 *         .reconnectDelay(Duration.ofMillis(50), Duration.ofSeconds(1))
 *         .build());
 * }</pre>
 */
public final class ConnectionOptions {
    /** How long any Redis call may take before a {@link RedisOutcomeUnknownException}. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);
    /** The first wait before reconnecting; each failed try doubles it, up to the maximum. */
    public static final Duration DEFAULT_RECONNECT_DELAY_MIN = Duration.ofMillis(50);
    /**
     * The longest wait between reconnect tries: short, so that calls work again about a second after Redis is
     * back, however long it was away (Lettuce's own default grows to 30 s).
     */
    public static final Duration DEFAULT_RECONNECT_DELAY_MAX = Duration.ofSeconds(1);
    public static final ConnectionOptions DEFAULTS = builder().build();

    private final Duration commandTimeout;
    private final Duration reconnectDelayMin;
    private final Duration reconnectDelayMax;

    private ConnectionOptions(Builder b) {
        commandTimeout = b.commandTimeout;
        reconnectDelayMin = b.reconnectDelayMin;
        reconnectDelayMax = b.reconnectDelayMax;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.commandTimeout = commandTimeout;
        b.reconnectDelayMin = reconnectDelayMin;
        b.reconnectDelayMax = reconnectDelayMax;
        return b;
    }

    public Duration commandTimeout() { return commandTimeout; }
    public Duration reconnectDelayMin() { return reconnectDelayMin; }
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

    /** Not thread-safe. */
    public static final class Builder {
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Duration reconnectDelayMin = DEFAULT_RECONNECT_DELAY_MIN;
        private Duration reconnectDelayMax = DEFAULT_RECONNECT_DELAY_MAX;

        private Builder() {
        }

        public Builder commandTimeout(Duration timeout) {
            ValidationException.check(timeout != null && !timeout.isNegative() && !timeout.isZero(),
                    "commandTimeout", "must be positive (was " + timeout + ")");
            this.commandTimeout = timeout;
            return this;
        }

        /** Exponential backoff between reconnect tries, from {@code min} doubling up to {@code max}. */
        public Builder reconnectDelay(Duration min, Duration max) {
            ValidationException.check(min != null && !min.isNegative() && !min.isZero(), "reconnectDelayMin",
                    "must be positive (was " + min + ")");
            ValidationException.check(max != null && max.compareTo(min) >= 0, "reconnectDelayMax",
                    "must be at least reconnectDelayMin " + min + " (was " + max + ")");
            this.reconnectDelayMin = min;
            this.reconnectDelayMax = max;
            return this;
        }

        public ConnectionOptions build() {
            return new ConnectionOptions(this);
        }
    }
}
