package io.bull4j.chaos;

/**
 * The worker options a run uses, the same for both engines, and the kind of work the processor does: {@code sleep}
 * (waits, as I/O-bound work does) or {@code spin} (computes, CPU-bound, for the job's duration).
 */
record WorkerSettings(String label, int concurrency, long lockMs, long stalledMs, int maxStalledCount, String work) {
    WorkerSettings(String label, int concurrency, long lockMs, long stalledMs, int maxStalledCount) {
        this(label, concurrency, lockMs, stalledMs, maxStalledCount, "sleep");
    }

    /** The same options with CPU-bound processors and {@code concurrency} per worker. */
    WorkerSettings cpuBound(int concurrency) {
        return new WorkerSettings(label + ", concurrency " + concurrency + ", CPU-bound", concurrency, lockMs,
                stalledMs, maxStalledCount, "spin");
    }

    /** The libraries' defaults: 30 s locks, a stalled check every 30 s, one stall allowed. */
    static WorkerSettings defaults(int concurrency) {
        return new WorkerSettings("defaults (lock 30 s, stalled 30 s)", concurrency, 30_000, 30_000, 1);
    }

    /** 5 s locks with a 5 s stalled check, one stall allowed. */
    static WorkerSettings fiveSecondLocks(int concurrency) {
        return new WorkerSettings("lock 5 s, stalled 5 s", concurrency, 5_000, 5_000, 1);
    }

    /** The longest a killed worker's job may wait for its restart under the target: the lock + 2 s. */
    long recoveryTargetMs() {
        return lockMs + 2_000;
    }
}
