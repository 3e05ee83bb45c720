package io.bull4j;

/**
 * The command was not applied and never will be: it was not sent (Redis was disconnected or unreachable, the
 * connection was closed), or it reached Redis after its deadline and was refused there without any write.
 * Retrying is safe.
 */
public class RedisNotAppliedException extends RedisException {
    public RedisNotAppliedException(String message, Throwable cause) {
        super(message, cause, false);
    }
}
