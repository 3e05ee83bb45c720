package io.bull4j;

/**
 * The command was sent but no answer came within the command timeout (Redis slow or frozen, or the connection
 * broke after the send). It may have taken effect before its deadline; it will not take effect later, because
 * every bull4j script refuses to run once its deadline has passed and the command is not re-sent after a
 * reconnect. (The few queue settings written as plain commands, such as {@code setGlobalConcurrency} or
 * {@code removeDeduplicationKey}, set or delete a value: a late arrival applies what was asked, later.) Retry only what is idempotent: an add with a {@code jobId} (a second add of the same id returns
 * the existing job), or read the state first. {@link #isTimeout()} tells a timeout from a broken
 * connection or a cancelled call.
 *
 * <pre>{@code
 * JobOptions once = JobOptions.builder().jobId("welcome-" + userId).build();
 * try {
 *     queue.add("welcome", data, once);
 * } catch (RedisOutcomeUnknownException e) {
 *     queue.add("welcome", data, once);   // the same id: no second job if the first add was applied
 * }
 * }</pre>
 */
public class RedisOutcomeUnknownException extends RedisException {
    /**
     * Creates one; bull4j throws it when a command was sent and its outcome is not known.
     *
     * @param message what failed
     * @param cause the failure behind it (usually the Lettuce exception), or null when bull4j's own deadline
     *              passed first
     * @param timeout whether no answer came in time (rather than the connection breaking or the call being
     *                cancelled)
     */
    public RedisOutcomeUnknownException(String message, Throwable cause, boolean timeout) {
        super(message, cause, timeout);
    }
}
