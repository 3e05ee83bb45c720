package io.bull4j;

/**
 * What {@link Worker#drain(java.time.Duration)} saw: how many jobs finished while it waited, how many were still
 * running when it returned, and whether it gave up at the timeout. Immutable.
 *
 * <pre>{@code
 * DrainResult r = worker.drain(Duration.ofSeconds(30));
 * if (r.timedOut()) log.warn("{} jobs still running", r.stillRunning());
 * }</pre>
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

    /** {@return how many jobs completed or failed while draining} */
    public int finished() {
        return finished;
    }

    /** {@return how many jobs were still running when drain returned} */
    public int stillRunning() {
        return stillRunning;
    }

    /** {@return whether drain gave up at its timeout} */
    public boolean timedOut() {
        return timedOut;
    }

    @Override
    public String toString() {
        return "DrainResult{finished=" + finished + ", stillRunning=" + stillRunning + ", timedOut=" + timedOut + "}";
    }
}
