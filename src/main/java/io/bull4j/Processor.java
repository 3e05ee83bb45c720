package io.bull4j;

/**
 * The code a {@link Worker} runs for each job. It runs on the worker's executor, never on an I/O thread.
 * Its return value completes the job and is stored as JSON ({@code null} is stored as JSON null); a returned
 * {@link java.util.concurrent.CompletionStage} or {@link java.util.concurrent.Future} is waited for, and its value
 * stored (its failure fails the attempt), as BullMQ awaits a processor's Promise. An exception
 * fails the attempt: it is retried with the job's backoff until its attempts are used, unless it is an
 * {@link UnrecoverableException}. A processor with no result to store can be a {@link VoidProcessor}
 * ({@code job -> { send(job); }}).
 *
 * <pre>{@code Processor p = job -> Map.of("sent", job.data(Email.class).to());}</pre>
 *
 * <p>It extends {@link VoidProcessor} only so that Java resolves a lambda that fits both forms (a single method
 * call, {@code job -> compute(job)}) to this one, and its value is kept.
 */
@FunctionalInterface
public interface Processor extends VoidProcessor {
    /**
     * Processes one job.
     *
     * @param job the job, with its data ({@link Job#data(Class)}) and options
     * @return the result, stored as the job's return value (JSON)
     * @throws Exception to fail the attempt
     */
    Object process(Job job) throws Exception;

    /** Runs {@link #process(Job)} and drops its value. */
    @Override
    default void run(Job job) throws Exception {
        process(job);
    }
}
