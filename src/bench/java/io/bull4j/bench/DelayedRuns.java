package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Issue 15's {@code delayed/bulk<N>}: the lateness of delayed jobs while a big bulk add is still running. The
 * Node driver's {@code delayedBulkRun} (src/bench/node/driver.mjs) does the same with BullMQ.
 *
 * <p>A worker (concurrency {@code --delayed-conc}, 10) runs before the add starts. Then {@code n} jobs are added
 * through addBulk, one chunk of {@code --chunk} (1,000) at a time, with {@code removeOnComplete}; job i gets the
 * delay {@link #DELAY_MIN_MS} + (i mod chunk) * {@link #CHUNK_SPREAD_MS} / chunk, so that every chunk comes due
 * over the 2 s after it was added: jobs keep coming due from 50 ms after the add starts for as long as it runs,
 * and up to 2 s after. Lateness = processor entry (wall clock ms) minus timestamp + delay; the jobs whose due time
 * fell before the add returned are also counted apart ({@code late_during_add_*}).
 */
final class DelayedRuns {
    static final long DELAY_MIN_MS = 50;
    static final long CHUNK_SPREAD_MS = 2000;
    private final Bench b;

    DelayedRuns(Bench b) {
        this.b = b;
    }

    /** The delay of job {@code i} (the same formula on the Node side). */
    static long delayOf(int i, int chunk) {
        return DELAY_MIN_MS + Math.round((double) (i % chunk) * CHUNK_SPREAD_MS / chunk);
    }

    Run bulk(int n, int concurrency) throws Exception {
        b.admin.flush();
        String name = "bench-delayed-bulk";
        int chunk = b.cfg.chunk;
        AtomicLongArray late = new AtomicLongArray(n);
        AtomicLongArray due = new AtomicLongArray(n);
        Completions done = new Completions(n);
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect(); Queue queue = b.queue(name, qc)) {
            Worker worker = new Worker(name, job -> {
                long now = System.currentTimeMillis();
                long d = job.timestamp().toEpochMilli() + job.opts().delay().toMillis();
                int i = LatencyRuns.index(job);
                due.set(i, d);
                late.set(i, now - d);
                return null;
            }, WorkerOptions.builder().connection(wc).concurrency(concurrency).build(), done);
            try {
                Sleep.ms(200); // as the other modes: let the worker reach its blocking fetch
                Measure.Snapshot m = b.measure.begin();
                long ta = System.nanoTime();
                b.addBulkAll(queue, n, i -> JobOptions.builder().delay(Duration.ofMillis(delayOf(i, chunk)))
                        .removeOnComplete(true).build());
                long addEndMs = System.currentTimeMillis();
                double addS = (System.nanoTime() - ta) / 1e9;
                done.await(Completions.timeoutFor(n) + CHUNK_SPREAD_MS / 1000.0);
                Run cost = b.measure.end(m, n, 0);
                double[] all = new double[n];
                double[] during = new double[n];
                int k = 0;
                for (int i = 0; i < n; i++) {
                    all[i] = late.get(i);
                    if (due.get(i) < addEndMs) {
                        during[k++] = all[i];
                    }
                }
                int early = (int) Arrays.stream(all).filter(x -> x < 0).count();
                return new Run().put("jobs", n).put("add_s", addS).put("add_jobs_per_s", n / addS)
                        .putAll(Stats.dist(all, "late")).put("early_jobs", early)
                        .put("due_during_add_jobs", k).putAll(Stats.dist(Arrays.copyOf(during, k), "late_during_add"))
                        .put("jobs_per_s", n / cost.get("wall_s"))
                        .put("jobs_per_s_processing", (n - 1) / ((done.tLast() - done.tFirst()) / 1e9))
                        .putAll(cost);
            } finally {
                worker.close();
            }
        }
    }
}
