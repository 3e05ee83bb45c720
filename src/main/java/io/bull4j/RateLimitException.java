package io.bull4j;

/**
 * Thrown by a processor that met a downstream's rate limit, usually after {@link Worker#rateLimit} or
 * {@link Queue#rateLimit}: the job goes back to wait with no attempt spent (as BullMQ's {@code RateLimitError}),
 * and the worker asks for jobs again once the queue's limiter window ends. Cheap: no stack trace is captured.
 *
 * <pre>{@code
 * if (response.status() == 429) {
 *     worker.rateLimit(Duration.ofSeconds(response.retryAfterSeconds()));
 *     throw new RateLimitException();
 * }
 * }</pre>
 */
public class RateLimitException extends Bull4jException {
    /** A rate-limit signal for the worker; its message is BullMQ's {@code bullmq:rateLimitExceeded}. */
    public RateLimitException() {
        super("bullmq:rateLimitExceeded", false);
    }
}
