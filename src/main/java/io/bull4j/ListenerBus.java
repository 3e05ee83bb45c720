package io.bull4j;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Delivers worker events to listeners on one event thread, in order, so that listeners never run on an I/O or
 * job thread and a throwing listener cannot disturb the worker.
 *
 * <p>A thread wake-up is among the dearest things a job costs, so the event thread is woken as seldom as it can be:
 * the per-job events (active, progress, completed) are only queued when some listener overrides their method, and
 * while events come faster than one per wake-up (a drain found several), the thread does not ask to be woken for
 * each: it sleeps {@link #LINGER_NANOS} and takes what came meanwhile. When a drain finds one event, the next one
 * wakes it at once, as before.
 */
final class ListenerBus {
    private static final Logger log = LoggerFactory.getLogger(ListenerBus.class);
    static final int ACTIVE = 1;
    static final int PROGRESS = 2;
    static final int COMPLETED = 4;

    /**
     * How long the event thread sleeps between drains while events come in bursts: at most this late (plus the
     * timer's slack), an event is delivered without a wake-up of its own.
     */
    static final long LINGER_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Consumer<WorkerListener>> queue = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    /** Set by the event thread before it parks until woken: an emit then unparks it. */
    private volatile boolean asleep;
    private volatile boolean closed;
    /** ACTIVE, PROGRESS and COMPLETED bits of the methods some listener overrides. */
    private volatile int wanted;

    ListenerBus(String queueName) {
        this.thread = new Thread(this::deliver, "bull4j-events-" + queueName);
        thread.setDaemon(true);
        thread.start();
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
        if (closed) {
            log.debug("event after close dropped");
            return;
        }
        queue.add(event);
        // the queue is written before asleep is read, and the event thread writes asleep before it reads the queue
        // again: one of the two sees the other
        if (asleep) {
            LockSupport.unpark(thread);
        }
    }

    private void deliver() {
        boolean burst = false;
        while (true) {
            int delivered = drain();
            Thread.interrupted(); // a listener's interrupt must not turn the parks below into a spin
            if (delivered > 1 || (burst && delivered > 0)) {
                // events come faster than the thread wakes: collect the next ones with a timed sleep
                burst = true;
                LockSupport.parkNanos(this, LINGER_NANOS);
                continue;
            }
            burst = false;
            asleep = true;
            if (queue.isEmpty()) {
                if (closed) {
                    return;
                }
                LockSupport.park(this);
            }
            asleep = false;
        }
    }

    private int drain() {
        int n = 0;
        Consumer<WorkerListener> event;
        while ((event = queue.poll()) != null) {
            n++;
            for (WorkerListener l : listeners) {
                try {
                    event.accept(l);
                } catch (RuntimeException | Error e) {
                    log.warn("worker listener {} threw; ignored", l, e);
                }
            }
        }
        return n;
    }

    /** Delivers what is queued, then stops (waiting up to 5 s for the listeners). */
    void close() {
        closed = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) {
            return; // a listener closing the worker: the thread ends after this drain
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
