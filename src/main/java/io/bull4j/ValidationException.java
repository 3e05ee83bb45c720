package io.bull4j;

/** Bad input, rejected before anything reached Redis. {@link #field()} names the offending option or argument. */
public class ValidationException extends Bull4jException {
    private final String field;

    public ValidationException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }

    /** Throws unless {@code condition} holds. */
    public static void check(boolean condition, String field, String message) {
        if (!condition) {
            throw new ValidationException(field, message);
        }
    }
}
