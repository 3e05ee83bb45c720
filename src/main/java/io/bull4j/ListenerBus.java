package io.bull4j;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Delivers worker events to listeners on one event thread, in order, so that listeners never run on an I/O or
 * job thread and a throwing listener cannot disturb the worker.
 *
 * <p>The per-job events (active, progress, completed) are only queued when some listener overrides their method:
 * every queued event wakes the event thread, and a thread wake-up is among the dearest things a job costs.
 *
 * <p>Listeners slower than the jobs hold the jobs back: once {@value #MAX_BEHIND} events wait, a job thread waits
 * before its next job ({@link #awaitRoom()}) until the listeners catch up, as BullMQ's listeners, called in line,
 * hold its worker back. Without it the queue of events, each holding its job's fields, grew without bound.
 */
final class ListenerBus {
    private static final Logger log = LoggerFactory.getLogger(ListenerBus.class);
    static final int ACTIVE = 1;
    static final int PROGRESS = 2;
    static final int COMPLETED = 4;

    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService thread;
    static final int MAX_BEHIND = 1024;
    /** Events queued or being delivered; guarded for waiting by {@code room}. */
    private final AtomicInteger behind = new AtomicInteger();
    private final Object room = new Object();
    private volatile boolean closed;
    /** The delivering thread, once started. */
    private volatile Thread deliverer;
    /** Set when the worker starts closing: no job thread waits for the listeners any more. */
    private volatile boolean holdingEnded;
    /** ACTIVE, PROGRESS and COMPLETED bits of the methods some listener overrides. */
    private volatile int wanted;

    ListenerBus(String queueName) {
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "bull4j-events-" + queueName);
            t.setDaemon(true);
            deliverer = t;
            return t;
        });
    }

    /** Whether the calling thread is the one that delivers events to the listeners. */
    boolean isDeliveryThread() {
        return Thread.currentThread() == deliverer;
    }

    synchronized void add(WorkerListener listener) {
        listeners.add(listener);
        wanted |= overridden(listener);
    }

    synchronized void remove(WorkerListener listener) {
        listeners.remove(listener);
        int bits = 0;
        for (WorkerListener l : listeners) {
            bits |= overridden(l);
        }
        wanted = bits;
    }

    /** Whether some listener overrides the event's method (ACTIVE, PROGRESS or COMPLETED). */
    boolean wants(int event) {
        return (wanted & event) != 0;
    }

    private static int overridden(WorkerListener l) {
        return (overrides(l, "onActive", Job.class) ? ACTIVE : 0)
                | (overrides(l, "onProgress", Job.class, Object.class) ? PROGRESS : 0)
                | (overrides(l, "onCompleted", Job.class, Object.class) ? COMPLETED : 0);
    }

    /** False only when the listener's class inherits the interface's empty default (a proxy counts as overriding). */
    private static boolean overrides(WorkerListener l, String name, Class<?>... params) {
        try {
            Method m = l.getClass().getMethod(name, params);
            return m.getDeclaringClass() != WorkerListener.class;
        } catch (NoSuchMethodException | SecurityException e) {
            return true;
        }
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    void emit(Consumer<WorkerListener> event) {
        if (listeners.isEmpty()) {
            return;
        }
        behind.incrementAndGet();
        try {
            thread.execute(() -> {
                try {
                    for (WorkerListener l : listeners) {
                        try {
                            event.accept(l);
                        } catch (Throwable e) { // also a checked exception thrown sneakily (Kotlin, @SneakyThrows)
                            log.warn("worker listener {} threw; ignored", l, e);
                        }
                    }
                } finally {
                    delivered();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            delivered();
            log.debug("event after close dropped");
        }
    }

    private void delivered() {
        if (behind.decrementAndGet() == MAX_BEHIND) {
            synchronized (room) {
                room.notifyAll();
            }
        }
    }

    /**
     * Waits, on a job thread before its next job, while the listeners are more than {@value #MAX_BEHIND} events
     * behind; {@link #endHolding()} (the worker's close) or an interrupt ends the wait.
     */
    void awaitRoom() {
        if (behind.get() <= MAX_BEHIND) {
            return;
        }
        synchronized (room) {
            while (behind.get() > MAX_BEHIND && !closed && !holdingEnded) {
                try {
                    room.wait(100); // timed: a close does not notify
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Lets every job thread waiting in {@link #awaitRoom()} go on, now and from now on: the worker is closing. */
    void endHolding() {
        holdingEnded = true;
        synchronized (room) {
            room.notifyAll();
        }
    }

    /**
     * Delivers what is queued, then stops; listeners still busy after 5 s are interrupted and the events not yet
     * delivered (onClosed among them) dropped, with a WARN.
     */
    void close() {
        closed = true;
        thread.shutdown();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                int dropped = thread.shutdownNow().size();
                log.warn("worker listeners still busy 5 s after close: {} events not delivered", dropped);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            thread.shutdownNow();
        }
    }
}
