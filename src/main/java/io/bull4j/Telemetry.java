package io.bull4j;

/**
 * The tracing hook of queues and workers, BullMQ's {@code telemetry} option: given to
 * {@link QueueOptions.Builder#telemetry(Telemetry)} it wraps each add and bulk add in a producer span and stores that
 * span's context in the job; given to {@link WorkerOptions.Builder#telemetry(Telemetry)} it wraps each attempt in a
 * consumer span whose parent is the context stored in the job. Span names, kinds and attributes are BullMQ 6.7.0's,
 * so one trace runs from a Node producer into a Java worker and the reverse. Without it (the default) nothing is
 * traced and nothing is stored.
 *
 * <pre>{@code
 * Telemetry tracing = OpenTelemetryTracing.create(openTelemetry);   // io.bull4j.otel, needs opentelemetry-api
 * Queue queue = new Queue("emails", QueueOptions.builder().connection(redis).telemetry(tracing).build());
 * Worker worker = new Worker("emails", processor,
 *         WorkerOptions.builder().connection(redis).telemetry(tracing).build());
 * }</pre>
 *
 * <p>{@code io.bull4j.otel.OpenTelemetryTracing} implements it on OpenTelemetry; an application may implement it for
 * another tracer (as BullMQ's {@code Telemetry} interface allows). Implementations must be thread-safe: queues and
 * workers call them from many threads. A span is used by one thread at a time, but an add's span may end on another
 * thread than the one that started it. The hook must not block or throw; bull4j does not close it.
 */
public interface Telemetry {
    /**
     * Starts a producer span (an add) as a child of the caller's current context.
     *
     * @param name the span's name, as BullMQ names it ({@code "add <queue>.<job name>"}, {@code "addBulk <queue>"})
     * @return the span, started
     */
    Span startProducer(String name);

    /**
     * Starts a consumer span (a worker's attempt of a job).
     *
     * @param name the span's name, as BullMQ names it ({@code "process <queue>"})
     * @param parentMetadata the context stored in the job by its producer (BullMQ's {@code opts.tm}), or null when
     *     it has none: the span is then a child of the caller's current context
     * @return the span, started
     */
    Span startConsumer(String name, String parentMetadata);

    /** One span, from its start to {@link #end()}. */
    interface Span {
        /**
         * {@return this span's context as text, to store in a job (BullMQ's {@code opts.tm}), or null to store
         * nothing}
         */
        String metadata();

        /**
         * Sets a text attribute.
         *
         * @param key the attribute's name
         * @param value its value; null is ignored
         */
        void setAttribute(String key, String value);

        /**
         * Sets a number attribute.
         *
         * @param key the attribute's name
         * @param value its value
         */
        void setAttribute(String key, long value);

        /**
         * Sets a list-of-text attribute.
         *
         * @param key the attribute's name
         * @param values its values
         */
        void setAttribute(String key, java.util.List<String> values);

        /**
         * Adds an event with one text attribute.
         *
         * @param name the event's name
         * @param key the attribute's name
         * @param value its value; null is ignored
         */
        void addEvent(String name, String key, String value);

        /**
         * Records that the operation failed with this error.
         *
         * @param error the error
         */
        void recordError(Throwable error);

        /**
         * Makes this span the current one on the calling thread until the returned scope is closed, on the same
         * thread: spans started meanwhile (by the processor, or by a {@code queue.add} in it) are its children.
         *
         * @return the scope to close
         */
        Scope makeCurrent();

        /** Ends the span. */
        void end();
    }

    /** What {@link Span#makeCurrent()} returns: closing it restores the thread's previous context. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
