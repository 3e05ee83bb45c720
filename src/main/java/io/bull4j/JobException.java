package io.bull4j;

/**
 * A job-level refusal from Redis: the job does not exist, is not in the expected state, or its lock is missing
 * or held by another token (so the caller no longer owns it).
 */
public class JobException extends Bull4jException {
    /** Why the transition was refused. */
    public enum Reason {
        JOB_NOT_FOUND, LOCK_MISSING, LOCK_MISMATCH, NOT_IN_STATE, JOB_LOCKED,
        /** A stored field of the job cannot be read (e.g. {@code data} that is not JSON, or not of the type asked). */
        BAD_DATA,
        OTHER
    }

    private final String queueName;
    private final String jobId;
    private final Reason reason;

    public JobException(String queueName, String jobId, Reason reason, String message) {
        this(queueName, jobId, reason, message, null);
    }

    public JobException(String queueName, String jobId, Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.queueName = queueName;
        this.jobId = jobId;
        this.reason = reason;
    }

    public String queueName() {
        return queueName;
    }

    public String jobId() {
        return jobId;
    }

    public Reason reason() {
        return reason;
    }
}
