package io.bull4j;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The work waiting for a processor thread (a fetched job to run, or a finish's answer to handle), in one queue that
 * the executor's threads drain. A thread that ends an item takes the next one without parking, and another thread
 * is asked for only when none is free to look at the queue. At high concurrency the answers of a batched finish
 * call then wake a thread or two instead of one thread per job: each wake-up is a context switch, which on a small
 * VM cost more JVM time than the jobs themselves.
 *
 * <p>An item that may block (a processor) never holds the others back: a thread that takes an item while others
 * wait asks for another thread first, unless a free one will look at the queue. Items are taken in the order they
 * came (on several threads their runs overlap).
 */
final class ReadyWork {
    private static final Logger log = LoggerFactory.getLogger(ReadyWork.class);

    /** Work for a processor thread. */
    interface Item {
        void run();

        /** The executor (or the retry timer) was shut down: undo what {@link #run} would have taken on, without
         * blocking (this may run on a Redis I/O thread). */
        void reject();
    }

    /** How soon a thread is asked for again after the executor refused one while running (a saturated pool). */
    private static final long RETRY_MS = 5;

    private final ExecutorService executor;
    private final ScheduledExecutorService timer;
    private final ConcurrentLinkedQueue<Item> items = new ConcurrentLinkedQueue<>();
    /** Threads asked for or in the drain loop that run no item now: each looks at the queue before it leaves. */
    private final AtomicInteger free = new AtomicInteger();

    ReadyWork(ExecutorService executor, ScheduledExecutorService timer) {
        this.executor = executor;
        this.timer = timer;
    }

    void submit(Item item) {
        items.add(item);
        if (free.get() == 0) {
            startThread();
        }
    }

    private void startThread() {
        free.incrementAndGet();
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
            free.decrementAndGet();
            if (executor.isShutdown()) {
                rejectAll();
                return;
            }
            // a bounded pool that is full (a user's executor): ask again shortly; the slots bound the work
            try {
                timer.schedule(this::askAgain, RETRY_MS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                rejectAll();
            }
        }
    }

    private void rejectAll() {
        for (Item item = items.poll(); item != null; item = items.poll()) {
            item.reject();
        }
    }

    private void askAgain() {
        if (free.get() == 0 && !items.isEmpty()) {
            startThread();
        }
    }

    private void drain() {
        while (true) {
            Item item = items.poll();
            free.decrementAndGet();
            if (item == null) {
                // leaving; an item added after the poll and before the count went down saw this thread free and
                // asked for none: it is taken here
                if (items.isEmpty()) {
                    return;
                }
                free.incrementAndGet();
                continue;
            }
            if (free.get() == 0 && !items.isEmpty()) {
                startThread(); // this item may block: the next one must not wait for it
            }
            boolean goOn = false;
            try {
                item.run();
                goOn = true;
            } catch (RuntimeException e) {
                log.error("a worker's processor thread failed", e); // the items catch what they expect
                goOn = true;
            } finally {
                Thread.interrupted(); // an interrupt meant for the item's processor is not for the next item
                if (goOn) {
                    free.incrementAndGet();
                } else if (free.get() == 0 && !items.isEmpty()) {
                    startThread(); // an Error ends this thread: another takes the rest
                }
            }
        }
    }
}
