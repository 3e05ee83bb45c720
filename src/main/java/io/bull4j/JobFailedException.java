package io.bull4j;

/**
 * Thrown by {@link Job#waitUntilFinished(java.time.Duration)} when the job ended in the failed state (its last
 * attempt failed). {@link #failedReason()} is the failure message the worker stored, as BullMQ's
 * {@code failedReason}.
 */
public class JobFailedException extends Bull4jException {
    private final String queueName;
    private final String jobId;
    private final String failedReason;

    public JobFailedException(String queueName, String jobId, String failedReason) {
        super("Job " + jobId + " on queue " + queueName + " failed: " + failedReason);
        this.queueName = queueName;
        this.jobId = jobId;
        this.failedReason = failedReason;
    }

    public String queueName() {
        return queueName;
    }

    public String jobId() {
        return jobId;
    }

    /** The failure message (plain text), or null when none was stored. */
    public String failedReason() {
        return failedReason;
    }
}
