package io.bull4j;

/**
 * Callbacks for what a {@link Worker} does; override the ones you need. They run one at a time on the worker's
 * event thread, never on an I/O thread or the job's thread, so a slow listener delays other listeners but not
 * the worker. Keep them quick. An exception a listener throws is logged and swallowed.
 */
public interface WorkerListener {
    /** A job was fetched and is about to run. */
    default void onActive(Job job) {
    }

    default void onProgress(Job job, Object progress) {
    }

    default void onCompleted(Job job, Object result) {
    }

    /** An attempt failed; {@code job.attemptsMade()} tells which. It may be retried. */
    default void onFailed(Job job, Throwable error) {
    }

    /** The stalled check found this job's lock expired and moved it back to wait. */
    default void onStalled(String jobId) {
    }

    /** The queue had no job left to take. */
    default void onDrained() {
    }

    /** A fault not tied to a job's outcome: a lost lock, a Redis error in the fetch loop, a listener failure. */
    default void onError(Throwable error) {
    }

    default void onClosed() {
    }
}
