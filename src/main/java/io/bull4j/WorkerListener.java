package io.bull4j;

/**
 * Callbacks for what a {@link Worker} does; override the ones you need. They run one at a time on the worker's
 * event thread, never on an I/O thread or the job's thread, so a slow listener delays other listeners, and the
 * worker only once it is over a thousand events behind: the jobs then wait for it (as BullMQ's listeners, called
 * in line, hold its worker back), rather than the events piling up in memory. Keep them quick. An exception a
 * listener throws is logged and swallowed. A close delivers the events still queued for up to 5 s, then
 * interrupts the listener and drops the rest (onClosed among them) with a WARN.
 *
 * <pre>{@code
 * worker.addListener(new WorkerListener() {
 *     @Override
 *     public void onFailed(Job job, Throwable error) {
 *         log.warn("job {} attempt {} failed", job.id(), job.attemptsMade(), error);
 *     }
 * });
 * }</pre>
 */
public interface WorkerListener {
    /**
     * A job was fetched and is about to run.
     *
     * @param job the job
     */
    default void onActive(Job job) {
    }

    /**
     * The processor reported progress with {@link Job#updateProgress(Object)}.
     *
     * @param job the job
     * @param progress the progress as passed
     */
    default void onProgress(Job job, Object progress) {
    }

    /**
     * A job completed.
     *
     * @param job the job
     * @param result what the processor returned
     */
    default void onCompleted(Job job, Object result) {
    }

    /**
     * An attempt failed; {@code job.attemptsMade()} tells which. It may be retried.
     *
     * @param job the job
     * @param error what the processor threw (or why the job could not finish)
     */
    default void onFailed(Job job, Throwable error) {
    }

    /**
     * A failed attempt will be retried: the job went back to wait, or to delayed for {@code delay}. Called just
     * before that attempt's {@link #onFailed}, so that a listener can tell a retried attempt from a final failure
     * (an {@link #onFailed} with no {@code onRetrying} before it).
     *
     * @param job the job, as the failed attempt left it
     * @param error what the processor threw
     * @param delay the wait before the retry; zero for at once
     */
    default void onRetrying(Job job, Throwable error, java.time.Duration delay) {
    }

    /**
     * The stalled check found this job's lock expired and moved it back to wait.
     *
     * @param jobId the job's id
     */
    default void onStalled(String jobId) {
    }

    /** The queue had no job left to take. */
    default void onDrained() {
    }

    /**
     * A fault not tied to a job's outcome: a lost lock, a Redis error in the fetch loop, a listener failure.
     *
     * @param error the fault
     */
    default void onError(Throwable error) {
    }

    /** The worker closed; the last callback it makes. */
    default void onClosed() {
    }
}
