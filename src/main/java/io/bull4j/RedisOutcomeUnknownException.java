package io.bull4j;

/**
 * The command was sent but no answer came within the command timeout (Redis slow or frozen, or the connection
 * broke after the send). It may have taken effect before its deadline; it will not take effect later, because
 * every bull4j script refuses to run once its deadline has passed and the command is not re-sent after a
 * reconnect. Retry only what is idempotent: an add with a {@code jobId} (a second add of the same id returns
 * the existing job), or read the state first.
 */
public class RedisOutcomeUnknownException extends RedisException {
    public RedisOutcomeUnknownException(String message, Throwable cause, boolean timeout) {
        super(message, cause, timeout);
    }
}
