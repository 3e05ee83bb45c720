package io.bull4j;

import java.time.Duration;

/**
 * A worker-side backoff for custom types ({@link Backoff#custom}) or for every failure. Called on the job's
 * thread after a failed attempt.
 *
 * <pre>{@code WorkerOptions.builder().backoffStrategy((attempts, type, err, job) -> Duration.ofSeconds(attempts))}</pre>
 */
@FunctionalInterface
public interface BackoffStrategy {
    /**
     * The wait before the retry of a failed attempt.
     *
     * @param attemptsMade attempts made so far, including the one that just failed
     * @param type         the job's backoff type
     * @param error        what the processor threw
     * @param job          the job
     * @return the wait before the retry; {@link Duration#ZERO} retries at once; {@code null} fails the job now
     */
    Duration delay(int attemptsMade, String type, Throwable error, Job job);
}
