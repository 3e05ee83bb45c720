package io.bull4j.bench;

import io.bull4j.Job;
import io.bull4j.WorkerListener;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a worker's completions (its {@code onCompleted} events, as the Node side counts {@code completed}) and
 * notes the first and last one's time, plus the time each tenth of the jobs was done, for throughput over time.
 */
final class Completions implements WorkerListener {
    private final int expected;
    private final AtomicInteger done = new AtomicInteger();
    private final CountDownLatch all = new CountDownLatch(1);
    private final long[] tenths = new long[11];
    private volatile long tFirst;
    private volatile long tLast;
    private volatile Throwable failure;

    Completions(int expected) {
        this.expected = expected;
    }

    @Override
    public void onCompleted(Job job, Object result) {
        long now = System.nanoTime();
        int d = done.incrementAndGet();
        if (d == 1) {
            tFirst = now;
        }
        int tenth = (int) Math.min(10, d * 10L / expected);
        if (tenths[tenth] == 0) {
            tenths[tenth] = now; // the moment the tenth-th tenth of the jobs was done
        }
        if (d == expected) {
            tLast = now;
            all.countDown();
        }
    }

    @Override
    public void onFailed(Job job, Throwable error) {
        failure = error;
        all.countDown();
    }

    @Override
    public void onError(Throwable error) {
        Log.log("worker error: " + error);
    }

    /** Waits for every job, failing on a job failure or after {@code timeoutS}. */
    void await(double timeoutS) throws InterruptedException {
        boolean ok = all.await((long) (timeoutS * 1000), TimeUnit.MILLISECONDS);
        if (failure != null) {
            throw new IllegalStateException("a benchmark job failed", failure);
        }
        if (!ok) {
            throw new IllegalStateException("only " + done.get() + " of " + expected + " jobs completed in "
                    + timeoutS + " s");
        }
    }

    int done() {
        return done.get();
    }

    long tFirst() {
        return tFirst;
    }

    long tLast() {
        return tLast;
    }

    /** Jobs/s over the first (slice 1) or last (slice 10) tenth of the jobs; NaN when not measurable. */
    double tenthRate(int slice) {
        long from = slice == 1 ? tFirst : tenths[slice - 1];
        long to = tenths[slice];
        return from == 0 || to <= from ? Double.NaN : expected / 10.0 / ((to - from) / 1e9);
    }

    /** A generous bound for {@code n} jobs: a minute plus 2 ms per job. */
    static double timeoutFor(int n) {
        return 60 + n * 0.002;
    }
}
