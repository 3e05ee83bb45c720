package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The queues of a Spring application, by name, on the shared {@link Bull4jConnection}: {@link #get(String)} gives
 * one {@link Queue} per name, created on first use and closed with this bean. The auto-configuration declares it as
 * a bean, and the queues named in {@code bull4j.queues} are also {@code Queue} beans whose instances come from it.
 *
 * <pre>{@code
 * @Service
 * class Signup {
 *     private final Queue emails;
 *     Signup(Bull4jQueues queues) { this.emails = queues.get("emails"); }
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class Bull4jQueues implements AutoCloseable {
    private final QueueOptions options;
    private final Map<String, Queue> queues = new LinkedHashMap<>();
    private boolean closed;

    /**
     * Queues on this connection with the default options.
     *
     * @param connection the connection every queue shares; it stays open when this closes
     * @param prefix the key prefix, or null for bull4j's default
     */
    public Bull4jQueues(Bull4jConnection connection, String prefix) {
        this(prefixed(QueueOptions.builder().connection(Objects.requireNonNull(connection, "connection")), prefix)
                .build());
    }

    /**
     * Queues with these options (they carry the connection).
     *
     * @param options the options of every queue
     */
    public Bull4jQueues(QueueOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    private static QueueOptions.Builder prefixed(QueueOptions.Builder b, String prefix) {
        return prefix == null ? b : b.prefix(prefix);
    }

    /**
     * The queue of this name, created on first use.
     *
     * @param name the queue name
     * @return the queue, the same instance for every call with this name
     * @throws io.bull4j.ValidationException when the name is not a valid queue name
     * @throws IllegalStateException when this registry is closed
     */
    public synchronized Queue get(String name) {
        if (closed) {
            throw new IllegalStateException("Bull4jQueues is closed");
        }
        Queue queue = queues.get(name);
        if (queue == null) {
            queue = new Queue(name, options);
            queues.put(name, queue);
        }
        return queue;
    }

    /** {@return the queues created so far, by name, in the order of their creation} */
    public synchronized Map<String, Queue> all() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(queues));
    }

    /** Closes every queue it created; idempotent. The connection stays open. */
    @Override
    public void close() {
        Map<String, Queue> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new LinkedHashMap<>(queues);
        }
        for (Queue queue : toClose.values()) {
            queue.close();
        }
    }
}
