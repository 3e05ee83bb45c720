package io.bull4j;

import java.time.Duration;

/**
 * Thrown by {@link Job#waitUntilFinished(Duration)} when the job did not finish within the given time. The job
 * is untouched: it may still finish later. Not a Redis fault (that is a {@link RedisException}).
 *
 * <pre>{@code
 * try {
 *     job.waitUntilFinished(Duration.ofSeconds(30));
 * } catch (WaitTimeoutException e) {
 *     return accepted(job.id());   // still running: answer later
 * }
 * }</pre>
 */
public class WaitTimeoutException extends Bull4jException {
    /** The job's id. */
    private final String jobId;
    /** How long the caller waited. */
    private final Duration timeout;

    /**
     * Creates one; {@link Job#waitUntilFinished(Duration)} throws it.
     *
     * @param queueName the job's queue
     * @param jobId the job's id
     * @param timeout how long the caller waited
     */
    public WaitTimeoutException(String queueName, String jobId, Duration timeout) {
        super("Job " + jobId + " on queue " + queueName + " did not finish within " + timeout);
        this.jobId = jobId;
        this.timeout = timeout;
    }

    /** {@return the job's id} */
    public String jobId() {
        return jobId;
    }

    /** {@return how long the caller waited} */
    public Duration timeout() {
        return timeout;
    }
}
