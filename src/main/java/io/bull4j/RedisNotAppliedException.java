package io.bull4j;

/**
 * The command was not applied and never will be: it was not sent (Redis was disconnected or unreachable, the
 * connection was closed), or it reached Redis after its deadline and was refused there without any write, or Redis
 * refused it before running it (LOADING, BUSY, READONLY, TRYAGAIN, CLUSTERDOWN, MASTERDOWN, NOREPLICAS).
 * Retrying is safe. {@link #isTimeout()} is false.
 *
 * <pre>{@code
 * try {
 *     queue.add("welcome", data);
 * } catch (RedisNotAppliedException e) {
 *     retryLater(() -> queue.add("welcome", data));   // nothing was written, so no duplicate
 * }
 * }</pre>
 */
public class RedisNotAppliedException extends RedisException {
    /**
     * Creates one; bull4j throws it when a command was certainly not applied.
     *
     * @param message what failed, and why it was not applied
     * @param cause the Lettuce exception
     */
    public RedisNotAppliedException(String message, Throwable cause) {
        super(message, cause, false);
    }
}
