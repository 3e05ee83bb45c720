package io.bull4j;

/**
 * Thrown by {@link Job#moveToDelayed(java.time.Instant)} to tell the worker the job was moved to the delayed set
 * and must not be completed or failed. Let it propagate out of the processor. Cheap: no stack trace is captured.
 *
 * <pre>{@code
 * Worker worker = new Worker("sync", job -> {
 *     if (!partnerApi.isUp()) {
 *         job.moveToDelayed(Instant.now().plusSeconds(60));   // throws DelayedException
 *     }
 *     return partnerApi.sync(job.data(SyncRequest.class));
 * });
 * }</pre>
 */
public class DelayedException extends Bull4jException {
    /** Creates one; throw it from the processor right after {@link Job#moveToDelayed(java.time.Instant)}. */
    public DelayedException() {
        super("job moved to delayed", false);
    }
}
