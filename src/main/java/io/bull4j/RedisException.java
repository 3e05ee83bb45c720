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
 *
 * <pre>{@code
 * try {
 *     queue.add("welcome", data);
 * } catch (RedisException e) {
 *     metrics.count(e.isTimeout() ? "redis.timeout" : "redis.error");
 *     throw e;
 * }
 * }</pre>
 */
public class RedisException extends Bull4jException {
    /** Whether the command timed out. */
    private final boolean timeout;

    /**
     * Creates one; bull4j throws it when a Redis command fails.
     *
     * @param message what failed
     * @param cause the Lettuce exception
     * @param timeout whether the command timed out
     */
    public RedisException(String message, Throwable cause, boolean timeout) {
        super(message, cause);
        this.timeout = timeout;
    }

    /**
     * {@return whether the command timed out (Lettuce's command timeout; see {@link Bull4jConnection#create(String, java.time.Duration)})}
     */
    public boolean isTimeout() {
        return timeout;
    }
}
