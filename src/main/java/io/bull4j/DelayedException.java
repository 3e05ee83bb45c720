package io.bull4j;

/**
 * Thrown by a processor after {@link Job#moveToDelayed(java.time.Instant)} to tell the worker the job was moved
 * to the delayed set and must not be completed or failed. Cheap: no stack trace is captured.
 */
public class DelayedException extends Bull4jException {
    public DelayedException() {
        super("job moved to delayed", false);
    }
}
