package io.bull4j;

/**
 * The worker's concurrency: a permit per job being fetched or run. Unlike a Semaphore, a waiting acquire also
 * returns when the worker stops, so the fetch loop is never interrupted in the middle of a Redis call.
 */
final class Slots {
    private final int capacity;
    private int free;
    private boolean stopped;

    Slots(int capacity) {
        this.capacity = capacity;
        this.free = capacity;
    }

    /** Takes a permit; false when stopped first. */
    synchronized boolean acquire() throws InterruptedException {
        while (free == 0 && !stopped) {
            wait();
        }
        if (stopped) {
            return false;
        }
        free--;
        return true;
    }

    /** Takes up to {@code max} permits without waiting; returns how many it took (0 when stopped). */
    synchronized int tryAcquire(int max) {
        if (stopped) {
            return 0;
        }
        int taken = Math.min(max, free);
        free -= taken;
        return taken;
    }

    synchronized void release() {
        release(1);
    }

    synchronized void release(int n) {
        if (n > 0) {
            free += n;
            notifyAll();
        }
    }

    synchronized void stop() {
        stopped = true;
        notifyAll();
    }

    synchronized int inUse() {
        return capacity - free;
    }

    /** Waits until no permit is in use, up to {@code millis} (negative: no limit). Returns true when idle. */
    synchronized boolean awaitIdle(long millis) throws InterruptedException {
        long deadline = millis < 0 ? Long.MAX_VALUE : System.nanoTime() + millis * 1_000_000;
        while (free < capacity) {
            long left = millis < 0 ? 0 : (deadline - System.nanoTime()) / 1_000_000;
            if (millis >= 0 && left <= 0) {
                return false;
            }
            wait(Math.max(left, 0));
        }
        return true;
    }
}
