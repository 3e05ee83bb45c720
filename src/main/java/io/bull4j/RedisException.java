package io.bull4j;

/**
 * A Redis fault: the server is unreachable, a command timed out, or a script failed. The Lettuce exception is
 * kept as the cause. {@link #isTimeout()} tells a timeout from other faults.
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
