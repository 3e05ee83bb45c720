package io.bull4j;

/**
 * The root of every exception bull4j throws. It is unchecked, so callers catch it only where they can act.
 *
 * <p>Subclasses carry context: {@link ValidationException} for bad input (nothing was written to Redis),
 * {@link JobException} for a job-level refusal (missing job, lost lock, damaged job), and {@link RedisException}
 * for a Redis fault (unreachable server, timeout, script error), with {@link RedisNotAppliedException} (safe to
 * retry) and {@link RedisOutcomeUnknownException} (retry only idempotent calls) saying what became of the command.
 *
 * <pre>{@code
 * try {
 *     queue.add("welcome", data, options);
 * } catch (ValidationException e) {
 *     return badRequest(e.field(), e.getMessage());   // nothing reached Redis
 * } catch (RedisException e) {
 *     return retryLater();                            // e.isTimeout() tells a timeout apart
 * }
 * }</pre>
 */
public class Bull4jException extends RuntimeException {
    /**
     * Creates one with a message.
     *
     * @param message the message
     */
    public Bull4jException(String message) {
        super(message);
    }

    /**
     * Creates one with a message and a cause.
     *
     * @param message the message
     * @param cause the cause
     */
    public Bull4jException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * For control signals, which are cheap: with {@code writableStackTrace} false no stack trace is captured.
     *
     * @param message the message
     * @param writableStackTrace whether to capture a stack trace
     */
    protected Bull4jException(String message, boolean writableStackTrace) {
        super(message, null, false, writableStackTrace);
    }
}
