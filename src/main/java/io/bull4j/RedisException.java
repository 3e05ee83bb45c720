package io.bull4j;

/**
 * A Redis fault: the server is unreachable, a command timed out, or a script failed. The Lettuce exception is
 * kept as the cause. {@link #isTimeout()} tells a timeout from other faults.
 *
 * <p>Two subclasses say what became of the command, which is what a caller needs to decide on a retry:
 * {@link RedisNotAppliedException} (it did not and never will take effect: safe to retry) and
 * {@link RedisOutcomeUnknownException} (it may have taken effect before its deadline, never after: retry only
 * what is idempotent, e.g. an add with a {@code jobId}). A plain {@code RedisException} is an error reply from
 * Redis (a script refused), which bull4j's scripts give before their first write.
 */
public class RedisException extends Bull4jException {
    private final boolean timeout;

    public RedisException(String message, Throwable cause, boolean timeout) {
        super(message, cause);
        this.timeout = timeout;
    }

    public boolean isTimeout() {
        return timeout;
    }
}
