package io.bull4j;

/**
 * Thrown by {@link Job#moveToWaitingChildren()} to tell the worker the job now waits for its children and must not
 * be completed or failed. Let it propagate out of the processor. Cheap: no stack trace is captured. BullMQ's
 * {@code WaitingChildrenError}.
 *
 * <pre>{@code
 * Worker worker = new Worker("reports", job -> {
 *     job.moveToWaitingChildren();   // throws this while children are pending
 *     return summarize(job.getChildrenValues());
 * });
 * }</pre>
 */
public class WaitingChildrenException extends Bull4jException {
    /** Creates one; {@link Job#moveToWaitingChildren()} throws it after moving the job. */
    public WaitingChildrenException() {
        super("job moved to waiting-children", false);
    }
}
