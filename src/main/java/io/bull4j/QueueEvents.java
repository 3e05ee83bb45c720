package io.bull4j;

import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.RedisLink;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Follows a queue's events stream, as BullMQ's {@code QueueEvents}: every transition any producer or worker
 * (bull4j or BullMQ) makes on the queue reaches the listeners as a typed {@link QueueEvent}.
 *
 * <pre>{@code
 * try (QueueEvents events = new QueueEvents("emails")) {          // new events only
 *     events.on(QueueEvent.Type.COMPLETED, e -> log.info("{} -> {}", e.jobId(), e.returnValueJson()));
 *     events.on(QueueEvent.Type.FAILED, e -> log.warn("{} failed: {}", e.jobId(), e.failedReason()));
 *     Job done = queue.add("welcome", data).waitUntilFinished(events, Duration.ofMinutes(1));
 * }
 * }</pre>
 *
 * <p>It reads with {@code XREAD BLOCK} on a Redis connection of its own, on one daemon thread that also runs the
 * listeners (see {@link QueueEventListener}). It starts after {@link QueueEventsOptions#lastEventId()}: by
 * default the stream's end when {@link #run()} (the constructor, with {@code autorun}) returns, so every event
 * written after that is delivered. Delivery is at-most-once per reader: events trimmed from the stream before
 * they were read are lost. Thread-safe. {@link #close()} is prompt, idempotent, and closes the Redis connection
 * only when this reader opened it (no {@link QueueEventsOptions#connection()} given).
 */
public final class QueueEvents implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueueEvents.class);

    private final QueueKeys keys;
    private final QueueEventsOptions opts;
    private final Bull4jConnection owned;
    private final EventReader reader;
    private final List<Registration> listeners = new CopyOnWriteArrayList<>();
    private final Object lifecycle = new Object();
    private Thread thread; // guarded by lifecycle
    private boolean started; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle

    /**
     * Reads {@code queueName} under the default prefix, on a connection of its own from {@code REDIS_URL} (else
     * {@code redis://localhost:6379}), from new events on; it is reading when this returns.
     *
     * @param queueName the queue's name
     * @throws ValidationException when the name is invalid
     * @throws RedisException when Redis cannot be reached
     */
    public QueueEvents(String queueName) {
        this(queueName, QueueEventsOptions.DEFAULTS);
    }

    /**
     * Reads {@code queueName} with these options; with {@code autorun} (the default) it is reading when this
     * returns.
     *
     * @param queueName the queue's name
     * @param options the options
     * @throws RedisException when Redis cannot be reached
     * @throws ValidationException when the name is invalid
     */
    public QueueEvents(String queueName, QueueEventsOptions options) {
        this(new QueueKeys(checked(options).prefix(), queueName), options, null);
    }

    /**
     * A reader on a queue's own link, after the stream entry {@code from} (see {@link #streamEnd}), not started
     * ({@link Job#waitUntilFinished}).
     */
    QueueEvents(QueueContext ctx, String from) {
        this(ctx.keys, QueueEventsOptions.builder().prefix(ctx.keys.prefix()).objectMapper(ctx.mapper)
                .lastEventId(from).autorun(false).build(), ctx.link);
    }

    /** The id of the stream's last entry, "0-0" when it has none: a reader started after it misses nothing later. */
    static String streamEnd(RedisLink link, String streamKey) {
        List<StreamMessage<String, String>> last = Await.result(link.commands().xrevrange(streamKey,
                Range.create("-", "+"), Limit.from(1)), link.commandTimeout(), "XREVRANGE");
        return last == null || last.isEmpty() ? "0-0" : last.get(0).getId();
    }

    private QueueEvents(QueueKeys keys, QueueEventsOptions options, RedisLink shared) {
        this.keys = keys;
        this.opts = options;
        this.owned = shared == null && options.connection() == null ? Bull4jConnection.create() : null;
        RedisLink link = shared != null ? shared : (owned != null ? owned : options.connection()).link();
        String base64 = Base64.getEncoder().encodeToString(keys.name().getBytes(StandardCharsets.UTF_8));
        // the client name BullMQ gives its QueueEvents connection
        this.reader = new EventReader(link, keys.events(), keys.prefix() + ":" + base64 + ":qe",
                options.blockTimeout(), options.objectMapper(), this::deliver, this::reportError);
        if (options.autorun()) {
            try {
                run();
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    private static QueueEventsOptions checked(QueueEventsOptions options) {
        ValidationException.check(options != null, "options", "must not be null");
        return options;
    }

    /**
     * Starts reading; the constructor already did unless {@code autorun} is false. A {@code "$"} start is
     * resolved here, to the id of the stream's last entry, so nothing written after this returns is missed.
     *
     * @throws Bull4jException when already running or closed
     */
    public void run() {
        synchronized (lifecycle) {
            if (closed) {
                throw new Bull4jException("QueueEvents on " + keys.name() + " is closed");
            }
            if (started) {
                throw new Bull4jException("QueueEvents on " + keys.name() + " is already running");
            }
            String from = opts.lastEventId();
            if (QueueEventsOptions.NEW_EVENTS_ONLY.equals(from)) {
                from = streamEnd(reader.link(), keys.events());
            }
            reader.startAfter(from);
            thread = new Thread(reader, "bull4j-queue-events-" + keys.name());
            thread.setDaemon(true);
            thread.start();
            started = true;
        }
    }

    /**
     * Receives every event.
     *
     * @param listener the listener
     * @return this reader
     */
    public QueueEvents addListener(QueueEventListener listener) {
        listeners.add(new Registration(null, null, Objects.requireNonNull(listener, "listener"), null));
        return this;
    }

    /**
     * Receives the events of one type.
     *
     * @param type the type of events to deliver
     * @param listener the listener
     * @return this reader
     */
    public QueueEvents on(QueueEvent.Type type, QueueEventListener listener) {
        ValidationException.check(type != null, "type", "must not be null");
        listeners.add(new Registration(type, null, Objects.requireNonNull(listener, "listener"), null));
        return this;
    }

    /**
     * Removes every registration of {@code listener}.
     *
     * @param listener the listener
     */
    public void removeListener(QueueEventListener listener) {
        listeners.removeIf(r -> r.listener == listener);
    }

    /** Events about one job only; {@code onClose} runs if this reader closes while it is registered. */
    void onJob(String jobId, QueueEventListener listener, Runnable onClose) {
        listeners.add(new Registration(null, jobId, listener, onClose));
        if (isClosed()) {
            onClose.run(); // close() may have told the registrations before this one was added
        }
    }

    /** {@return the name of the queue read} */
    public String queueName() {
        return keys.name();
    }

    QueueKeys keys() {
        return keys;
    }

    /**
     * The id of the last event delivered to the listeners (or the start position while none has been): store
     * it and pass it as {@link QueueEventsOptions.Builder#lastEventId(String)} to resume after a restart.
     * Null before {@link #run()}.
     *
     * @return the stream id, or null before {@link #run()}
     */
    public String lastEventId() {
        return reader.cursor();
    }

    /** Up to a batch of the entries after {@code id}, read at once without blocking. */
    List<QueueEvent> readAfter(String id) {
        return reader.readAfter(id);
    }

    /** {@return whether the reader has started, is not closed, and its thread still reads} */
    public boolean isRunning() {
        synchronized (lifecycle) {
            return started && !closed && thread.isAlive();
        }
    }

    /** {@return whether the caller runs on this reader's thread (inside one of its listeners)} */
    boolean isReaderThread() {
        synchronized (lifecycle) {
            return thread == Thread.currentThread();
        }
    }

    boolean isClosed() {
        synchronized (lifecycle) {
            return closed;
        }
    }

    private void deliver(QueueEvent event) {
        for (Registration r : listeners) {
            if ((r.type == null || r.type == event.type()) && (r.jobId == null || r.jobId.equals(event.jobId()))) {
                try {
                    r.listener.onEvent(event);
                } catch (Throwable e) { // also an Error or a checked exception thrown sneakily: the reader goes on
                    log.warn("QueueEvents listener {} threw on {}; ignored", r.listener, event.type(), e);
                }
            }
        }
    }

    private void reportError(Throwable error) {
        Set<QueueEventListener> told = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Registration r : listeners) {
            if (told.add(r.listener)) {
                try {
                    r.listener.onError(error);
                } catch (Throwable e) {
                    log.warn("QueueEvents listener {} threw in onError; ignored", r.listener, e);
                }
            }
        }
    }

    /** Stops reading at once (the blocked read is cut by closing its connection) and waits for the thread. */
    @Override
    public void close() {
        Uninterrupted.run(this::closeNow);
    }

    private void closeNow() {
        Thread t;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            t = thread;
        }
        reader.stop();
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(EventReader.CLOSE_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                log.warn("QueueEvents on {}: a listener is still running after {}; not waiting for it",
                        keys.name(), EventReader.CLOSE_WAIT);
            }
        }
        for (Registration r : listeners) {
            if (r.onClose != null) {
                r.onClose.run();
            }
        }
        if (owned != null) {
            owned.close();
        }
    }

    @Override
    public String toString() {
        return "QueueEvents{" + keys.qualifiedName() + ", lastEventId=" + lastEventId() + "}";
    }

    /** A listener and what it wants: a type and/or a job (null = any). */
    private record Registration(QueueEvent.Type type, String jobId, QueueEventListener listener, Runnable onClose) {
    }
}
