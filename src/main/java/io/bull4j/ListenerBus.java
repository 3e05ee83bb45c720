package io.bull4j;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Delivers worker events to listeners on one event thread, in order, so that listeners never run on an I/O or
 * job thread and a throwing listener cannot disturb the worker.
 */
final class ListenerBus {
    private static final Logger log = LoggerFactory.getLogger(ListenerBus.class);

    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService thread;

    ListenerBus(String queueName) {
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "bull4j-events-" + queueName);
            t.setDaemon(true);
            return t;
        });
    }

    void add(WorkerListener listener) {
        listeners.add(listener);
    }

    void remove(WorkerListener listener) {
        listeners.remove(listener);
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    void emit(Consumer<WorkerListener> event) {
        if (listeners.isEmpty()) {
            return;
        }
        try {
            thread.execute(() -> {
                for (WorkerListener l : listeners) {
                    try {
                        event.accept(l);
                    } catch (RuntimeException | Error e) {
                        log.warn("worker listener {} threw; ignored", l, e);
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("event after close dropped");
        }
    }

    /** Delivers what is queued, then stops. */
    void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
