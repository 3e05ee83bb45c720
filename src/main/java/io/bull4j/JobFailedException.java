package io.bull4j;

/**
 * Thrown by {@link Job#waitUntilFinished(java.time.Duration)} when the job ended in the failed state (its last
 * attempt failed). {@link #failedReason()} is the failure message the worker stored, as BullMQ's
 * {@code failedReason}.
 *
 * <pre>{@code
 * try {
 *     Job done = queue.add("render", spec).waitUntilFinished(Duration.ofMinutes(2));
 * } catch (JobFailedException e) {
 *     log.warn("job {} failed: {}", e.jobId(), e.failedReason());
 * }
 * }</pre>
 */
public class JobFailedException extends Bull4jException {
    /** The job's queue. */
    private final String queueName;
    /** The job's id. */
    private final String jobId;
    /** The failure message, or null. */
    private final String failedReason;

    /**
     * Creates one; {@link Job#waitUntilFinished(java.time.Duration)} throws it.
     *
     * @param queueName the job's queue
     * @param jobId the job's id
     * @param failedReason the failure message the worker stored, or null
     */
    public JobFailedException(String queueName, String jobId, String failedReason) {
        super("Job " + jobId + " on queue " + queueName + " failed: " + failedReason);
        this.queueName = queueName;
        this.jobId = jobId;
        this.failedReason = failedReason;
    }

    /** {@return the job's queue} */
    public String queueName() {
        return queueName;
    }

    /** {@return the job's id} */
    public String jobId() {
        return jobId;
    }

    /** {@return the failure message (plain text), or null when none was stored} */
    public String failedReason() {
        return failedReason;
    }
}
