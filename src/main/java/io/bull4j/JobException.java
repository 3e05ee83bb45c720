package io.bull4j;

/**
 * A job-level refusal from Redis: the job does not exist, is not in the expected state, or its lock is missing
 * or held by another token (so the caller no longer owns it). {@link #reason()} tells which.
 *
 * <pre>{@code
 * try {
 *     job.extendLock(Duration.ofMinutes(5));
 * } catch (JobException e) {
 *     if (e.reason() == JobException.Reason.LOCK_MISMATCH) stopWork();   // another worker owns the job now
 * }
 * }</pre>
 */
public class JobException extends Bull4jException {
    /** Why the transition was refused. */
    public enum Reason {
        /** The job does not exist (any more). */
        JOB_NOT_FOUND,
        /** The job has no lock: it was never taken, or its lock expired. */
        LOCK_MISSING,
        /** The job's lock is held by another token: another worker owns the job now. */
        LOCK_MISMATCH,
        /** The job is not in the state the operation needs (for example, retrying a job that has not failed). */
        NOT_IN_STATE,
        /** The job is locked by a worker, so it cannot be removed or changed now. */
        JOB_LOCKED,
        /** A stored field of the job cannot be read (e.g. {@code data} that is not JSON, or not of the type asked). */
        BAD_DATA,
        /** A parent of a flow cannot complete while some of its children are still pending. */
        PENDING_CHILDREN,
        /** A parent of a flow cannot complete: a child with failParentOnFailure failed. */
        FAILED_CHILDREN,
        /** A flow's job already has another parent, which cannot be replaced. */
        PARENT_CONFLICT,
        /** A refusal code bull4j does not know; the message holds it. */
        OTHER
    }

    /** The job's queue. */
    private final String queueName;
    /** The job's id. */
    private final String jobId;
    /** Why the transition was refused. */
    private final Reason reason;

    /**
     * Creates one; bull4j throws it when a script refuses a job's transition.
     *
     * @param queueName the job's queue
     * @param jobId the job's id
     * @param reason why the transition was refused
     * @param message the message
     */
    public JobException(String queueName, String jobId, Reason reason, String message) {
        this(queueName, jobId, reason, message, null);
    }

    /**
     * Creates one with the failure behind it; bull4j throws it, for example, when a job's stored data cannot be
     * read ({@link Reason#BAD_DATA}, with the parse error as the cause).
     *
     * @param queueName the job's queue
     * @param jobId the job's id
     * @param reason why the transition was refused
     * @param message the message
     * @param cause the failure behind it, or null
     */
    public JobException(String queueName, String jobId, Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.queueName = queueName;
        this.jobId = jobId;
        this.reason = reason;
    }

    /** {@return the job's queue} */
    public String queueName() {
        return queueName;
    }

    /** {@return the job's id} */
    public String jobId() {
        return jobId;
    }

    /** {@return why the transition was refused} */
    public Reason reason() {
        return reason;
    }
}
