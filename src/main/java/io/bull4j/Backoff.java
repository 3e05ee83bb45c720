package io.bull4j;

import java.time.Duration;
import java.util.Objects;

/**
 * How long to wait before retrying a failed job: {@code fixed}, {@code exponential} (delay, 2×delay, 4×delay…),
 * or a named custom type resolved by the worker's {@link BackoffStrategy}. An optional jitter in [0, 1] randomizes
 * the wait to {@code [d·(1−jitter), d)}, as BullMQ does. Immutable and thread-safe.
 *
 * <pre>{@code JobOptions.builder().attempts(5).backoff(Backoff.exponential(Duration.ofSeconds(2)).withJitter(0.5))}</pre>
 */
public final class Backoff {
    private final String type;
    private final Duration delay;
    private final double jitter;

    private Backoff(String type, Duration delay, double jitter) {
        ValidationException.check(type != null && !type.isEmpty(), "backoff.type", "must not be empty");
        ValidationException.checkDuration(delay, "backoff.delay");
        ValidationException.check(delay != null && !delay.isNegative(), "backoff.delay",
                "must be zero or positive (was " + delay + ")");
        ValidationException.check(jitter >= 0 && jitter <= 1, "backoff.jitter", "must be in [0, 1] (was " + jitter + ")");
        this.type = type;
        this.delay = delay;
        this.jitter = jitter;
    }

    /**
     * The same wait before every retry.
     *
     * @param delay zero or positive
     * @return the backoff
     */
    public static Backoff fixed(Duration delay) {
        return new Backoff("fixed", delay, 0);
    }

    /**
     * A wait that doubles with each retry: {@code delay}, {@code 2×delay}, {@code 4×delay}...
     *
     * @param delay the first wait; zero or positive
     * @return the backoff
     */
    public static Backoff exponential(Duration delay) {
        return new Backoff("exponential", delay, 0);
    }

    /**
     * A type the worker's {@link BackoffStrategy} resolves; {@code delay} is passed along as a hint.
     *
     * @param type the type name, not {@code "fixed"} or {@code "exponential"} to reach the strategy
     * @param delay a hint for the strategy; zero or positive
     * @return the backoff
     */
    public static Backoff custom(String type, Duration delay) {
        return new Backoff(type, delay, 0);
    }

    /** A backoff as any producer stored it, jitter included. */
    static Backoff of(String type, Duration delay, double jitter) {
        return new Backoff(type, delay, jitter);
    }

    /**
     * This backoff with a jitter: each wait is drawn from {@code [d·(1−jitter), d)}.
     *
     * @param jitter from 0 (none) to 1
     * @return a new backoff
     */
    public Backoff withJitter(double jitter) {
        return new Backoff(type, delay, jitter);
    }

    /** {@return the type: {@code "fixed"}, {@code "exponential"} or a custom name} */
    public String type() {
        return type;
    }

    /** {@return the base delay} */
    public Duration delay() {
        return delay;
    }

    /** {@return the jitter, from 0 (none) to 1} */
    public double jitter() {
        return jitter;
    }

    /** {@return whether bull4j computes the wait itself ({@code fixed} or {@code exponential})} */
    public boolean isBuiltIn() {
        return type.equals("fixed") || type.equals("exponential");
    }

    /**
     * The built-in delay before the retry that follows failed attempt number {@code attemptsMade} (1-based), as
     * BullMQ computes it.
     *
     * @param attemptsMade attempts made so far, the failed one included
     * @param random a number in [0, 1) that draws the jitter
     * @return the wait
     */
    public Duration delayFor(int attemptsMade, double random) {
        long base = delay.toMillis();
        if (type.equals("exponential")) {
            base = Math.round(Math.pow(2, attemptsMade - 1) * base);
        }
        if (jitter > 0) {
            base = (long) Math.floor(random * base * jitter + base * (1 - jitter));
        }
        return Duration.ofMillis(base);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Backoff && ((Backoff) o).type.equals(type) && ((Backoff) o).delay.equals(delay)
                && ((Backoff) o).jitter == jitter;
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, delay, jitter);
    }

    @Override
    public String toString() {
        return "Backoff{" + type + ", " + delay + (jitter > 0 ? ", jitter=" + jitter : "") + "}";
    }
}
