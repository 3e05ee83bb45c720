package io.bull4j;

/**
 * Bad input, rejected before anything reached Redis. {@link #field()} names the offending option or argument.
 *
 * <pre>{@code
 * try {
 *     JobOptions.builder().priority(-1);
 * } catch (ValidationException e) {
 *     e.field();        // "priority"
 *     e.getMessage();   // "priority: must be between 0 and 2097151 (was -1)"
 * }
 * }</pre>
 */
public class ValidationException extends Bull4jException {
    /** The refused option or argument. */
    private final String field;

    /**
     * Creates one; its message is {@code "<field>: <message>"}.
     *
     * @param field the option or argument that was refused, such as {@code "priority"} or {@code "data"}
     * @param message what is wrong with it, with the value when it helps
     */
    public ValidationException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** {@return the option or argument that was refused} */
    public String field() {
        return field;
    }

    /**
     * Throws unless {@code condition} holds.
     *
     * @param condition the check
     * @param field the option or argument checked
     * @param message what is wrong when the check fails
     * @throws ValidationException when {@code condition} is false
     */
    public static void check(boolean condition, String field, String message) {
        if (!condition) {
            throw new ValidationException(field, message);
        }
    }

    /** The longest duration an option takes: what a long of milliseconds holds. */
    static final java.time.Duration MAX_DURATION = java.time.Duration.ofMillis(Long.MAX_VALUE);

    /**
     * The longest expiry bull4j's scripts hand Redis: 2^53 - 1 ms, which a Lua number holds and prints exactly
     * (a longer one reaches Redis as "9.2233720368547758e+18", an error after the script's first writes).
     */
    static final java.time.Duration MAX_EXPIRY = java.time.Duration.ofMillis((1L << 53) - 1);

    /** Refuses a duration (null passes) longer than {@link #MAX_EXPIRY}, naming the field. */
    static void checkExpiry(java.time.Duration d, String field) {
        check(d == null || d.compareTo(MAX_EXPIRY) <= 0, field, "must be at most " + MAX_EXPIRY.toMillis()
                + " ms (was " + d + ")");
    }

    /** Refuses a duration that is null, under 1 ms, or whose milliseconds would overflow a long, naming the field. */
    static void checkAtLeastOneMs(java.time.Duration d, String field) {
        check(d != null && d.compareTo(MAX_DURATION) <= 0 && d.toMillis() > 0, field,
                "must be at least 1 ms and at most " + MAX_DURATION + " (was " + d + ")");
    }

    /** Refuses a duration (null passes) whose milliseconds would overflow a long, naming the field. */
    static void checkDuration(java.time.Duration d, String field) {
        check(d == null || (d.compareTo(MAX_DURATION) <= 0 && d.compareTo(MAX_DURATION.negated()) >= 0), field,
                "must be within " + MAX_DURATION + " either way (was " + d + ")");
    }
}
