package io.bull4j;

/**
 * The code a {@link Worker} runs for each job when it has no result to store: the job completes with a
 * {@code null} return value (JSON null, as a BullMQ processor that returns {@code undefined}). A block lambda
 * without {@code return} is one, so no {@code return null;} is needed:
 *
 * <pre>{@code
 * new Worker("emails", job -> { mailer.send(job.data(Email.class)); });   // VoidProcessor: no result
 * new Worker("emails", job -> mailer.sendAndGetId(job.data(Email.class))); // Processor: the id is stored
 * new Worker("emails", job -> 42);                                         // Processor
 * }</pre>
 *
 * <p><b>Why the braces.</b> Java chooses between the two forms from the lambda's shape, before it looks at the type
 * the body returns. A lambda whose body is a single method call fits both forms, and bull4j resolves it to
 * {@link Processor} (the more specific type), so that its value is stored, never silently dropped. A call to a
 * {@code void} method therefore goes in a block, {@code job -> { send(job); }}; written {@code job -> send(job)}
 * it is refused by the compiler ("void cannot be converted to Object"), never accepted with a changed meaning.
 * Thread-safety and threads are those of {@link Processor}.
 */
@FunctionalInterface
public interface VoidProcessor {
    /**
     * Processes one job, with no result to store.
     *
     * @param job the job, with its data ({@link Job#data(Class)}) and options
     * @throws Exception to fail the attempt
     */
    void run(Job job) throws Exception;
}
