package io.bull4j;

/**
 * What {@link Worker#drain(java.time.Duration)} saw: how many jobs finished while it waited, how many were still
 * running when it returned, and whether it gave up at the timeout.
 */
public final class DrainResult {
    private final int finished;
    private final int stillRunning;
    private final boolean timedOut;

    DrainResult(int finished, int stillRunning, boolean timedOut) {
        this.finished = finished;
        this.stillRunning = stillRunning;
        this.timedOut = timedOut;
    }

    /** Jobs that completed or failed while draining. */
    public int finished() {
        return finished;
    }

    public int stillRunning() {
        return stillRunning;
    }

    public boolean timedOut() {
        return timedOut;
    }

    @Override
    public String toString() {
        return "DrainResult{finished=" + finished + ", stillRunning=" + stillRunning + ", timedOut=" + timedOut + "}";
    }
}
