package io.bull4j;

/**
 * The code a {@link Worker} runs for each job. It runs on the worker's executor, never on an I/O thread.
 * Its return value completes the job and is stored as JSON ({@code null} is stored as JSON null). An exception
 * fails the attempt: it is retried with the job's backoff until its attempts are used, unless it is an
 * {@link UnrecoverableException}.
 *
 * <pre>{@code Processor p = job -> Map.of("sent", job.data(Email.class).to());}</pre>
 */
@FunctionalInterface
public interface Processor {
    /**
     * Processes one job.
     *
     * @param job the job, with its data ({@link Job#data(Class)}) and options
     * @return the result, stored as the job's return value (JSON)
     * @throws Exception to fail the attempt
     */
    Object process(Job job) throws Exception;
}
