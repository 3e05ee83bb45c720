package io.bull4j.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method of a Spring bean the processor of a worker that the auto-configuration builds, starts once the
 * context is refreshed and closes gracefully on shutdown ({@link Bull4jWorkers}). The method takes one
 * {@link io.bull4j.Job}; what it returns is the job's result (nothing for {@code void}), and what it throws fails the
 * attempt as a processor's exception does.
 *
 * <pre>{@code
 * @Component
 * class Mailer {
 *     @Bull4jWorker(queue = "emails", concurrency = 5)
 *     String send(Job job) {
 *         ...
 *         return "sent";
 *     }
 * }
 * }</pre>
 *
 * <p>The worker's options come from, in this order: {@code bull4j.workers.<id>.*}, this annotation, then
 * {@code bull4j.worker.*}, then bull4j's defaults.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Bull4jWorker {
    /**
     * The queue to consume; {@code ${...}} placeholders are resolved from the environment.
     *
     * @return the queue name
     */
    String queue();

    /**
     * The worker's id, for its {@code bull4j.workers.<id>.*} overrides, its health detail and its name in Redis's
     * client list; the queue name when empty. Ids are unique in a context.
     *
     * @return the id
     */
    String id() default "";

    /**
     * How many jobs the worker runs at once; 0 (the default) leaves it to {@code bull4j.worker.concurrency}.
     *
     * @return the concurrency, or 0
     */
    int concurrency() default 0;

    /**
     * How long a job's lock lasts, such as {@code "30s"} or {@code "PT30S"}; empty (the default) leaves it to
     * {@code bull4j.worker.lock-duration}.
     *
     * @return the duration, or empty
     */
    String lockDuration() default "";
}
