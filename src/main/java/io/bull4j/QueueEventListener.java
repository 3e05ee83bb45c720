package io.bull4j;

/**
 * Receives the events a {@link QueueEvents} reads. A lambda will do:
 *
 * <pre>{@code
 * events.addListener(e -> metrics.count(e.type()));
 * events.on(QueueEvent.Type.COMPLETED, e -> done(e.jobId(), e.returnValueJson()));
 * }</pre>
 *
 * <p>Listeners run one at a time on the reader's own thread, in stream order, never on a Redis I/O thread. The
 * next read waits for them, so keep them quick (hand slow work to an executor). An exception a listener throws
 * is logged and swallowed.
 */
@FunctionalInterface
public interface QueueEventListener {
    /**
     * Called for each event, in stream order.
     *
     * @param event the event
     */
    void onEvent(QueueEvent event);

    /**
     * A read failed (Redis unreachable, or a read that outlived its block time); the reader reconnects and goes on
     * from the last event it delivered, so no event is skipped unless the stream was trimmed meanwhile. Does nothing
     * by default.
     *
     * @param error what failed
     */
    default void onError(Throwable error) {
    }
}
