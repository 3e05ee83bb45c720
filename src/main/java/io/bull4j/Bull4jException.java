package io.bull4j;

/**
 * The root of every exception bull4j throws. It is unchecked, so callers catch it only where they can act.
 *
 * <p>Subclasses carry context: {@link ValidationException} for bad input (nothing was written to Redis),
 * {@link JobException} for a job-level refusal (missing job, lost lock, damaged job), and {@link RedisException}
 * for a Redis fault (unreachable server, timeout, script error), with {@link RedisNotAppliedException} (safe to
 * retry) and {@link RedisOutcomeUnknownException} (retry only idempotent calls) saying what became of the command.
 */
public class Bull4jException extends RuntimeException {
    public Bull4jException(String message) {
        super(message);
    }

    public Bull4jException(String message, Throwable cause) {
        super(message, cause);
    }

    /** For control signals, which are cheap: no stack trace is captured. */
    protected Bull4jException(String message, boolean writableStackTrace) {
        super(message, null, false, writableStackTrace);
    }
}
