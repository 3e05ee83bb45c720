package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueEvent;
import io.bull4j.QueueEvents;
import io.bull4j.QueueEventsOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntToLongFunction;

/** Modes d and e of the Node side: sequential single-job latency, and the lateness of delayed jobs. */
final class LatencyRuns {
    private final Bench b;

    LatencyRuns(Bench b) {
        this.b = b;
    }

    static double nowMs() {
        return System.nanoTime() / 1e6;
    }

    static int index(Job job) {
        return ((Number) ((Map<?, ?>) job.data()).get("i")).intValue();
    }

    /**
     * d. One job at a time with a running worker (concurrency 1) and a QueueEvents reader: the add call, add to
     * processor start, and add to the {@code completed} event. The first {@code warmup} jobs are not counted.
     */
    Run latency(int n, int warmup) throws Exception {
        b.admin.flush();
        String name = "bench-lat";
        int total = n + warmup;
        AtomicLongArray startLat = new AtomicLongArray(total); // double bits, written on the processor thread
        AtomicReferenceArray<CompletableFuture<Double>> waiters = new AtomicReferenceArray<>(total);
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect(); Bull4jConnection ec = b.connect();
             Queue queue = b.queue(name, qc);
             QueueEvents events = new QueueEvents(name, QueueEventsOptions.builder().connection(ec).build())) {
            events.on(QueueEvent.Type.COMPLETED, e -> {
                CompletableFuture<Double> w = waiters.get(Integer.parseInt(e.returnValueJson()));
                if (w != null) {
                    w.complete(nowMs());
                }
            });
            Worker worker = new Worker(name, job -> {
                Map<?, ?> d = (Map<?, ?>) job.data();
                int i = ((Number) d.get("i")).intValue();
                startLat.set(i, Double.doubleToRawLongBits(nowMs() - ((Number) d.get("t0")).doubleValue()));
                return i;
            }, WorkerOptions.builder().connection(wc).concurrency(1).build());
            try {
                Sleep.ms(200); // as the Node side: let the worker reach its blocking fetch
                double[] addLat = new double[total];
                double[] complLat = new double[total];
                long[] wall = b.cfg.latencyDump != null ? new long[total] : null; // wall clock of each add
                Measure.Snapshot m = null;
                for (int i = 0; i < total; i++) {
                    if (i == warmup) {
                        m = b.measure.begin();
                    }
                    CompletableFuture<Double> done = new CompletableFuture<>();
                    waiters.set(i, done);
                    double t0 = nowMs();
                    if (wall != null) {
                        wall[i] = System.currentTimeMillis();
                    }
                    Map<String, Object> data = new LinkedHashMap<>();
                    data.put("i", i);
                    data.put("t0", t0);
                    queue.add("lat", data);
                    addLat[i] = nowMs() - t0;
                    complLat[i] = done.get(30, TimeUnit.SECONDS) - t0;
                }
                Run cost = b.measure.end(m, n, 0);
                double[] start = new double[total];
                for (int i = 0; i < total; i++) {
                    start[i] = Double.longBitsToDouble(startLat.get(i));
                }
                if (wall != null) {
                    dump(wall, start, complLat, addLat);
                }
                return new Run().put("jobs", n).put("jobs_per_s", n / cost.get("wall_s"))
                        .putAll(Stats.dist(Arrays.copyOfRange(addLat, warmup, total), "add_call"))
                        .putAll(Stats.dist(Arrays.copyOfRange(start, warmup, total), "start"))
                        .putAll(Stats.dist(Arrays.copyOfRange(complLat, warmup, total), "completed_event"))
                        .putAll(cost);
            } finally {
                worker.close();
            }
        }
    }

    /**
     * --latency-dump: one line per job (warm-up jobs included, index first): index, wall clock of the add (ms),
     * add to start, add to completed event, the add call (ms), to line a slow job up with a GC or JIT log.
     */
    private void dump(long[] wall, double[] start, double[] completed, double[] add) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < wall.length; i++) {
            sb.append(i).append(' ').append(wall[i]).append(' ').append(start[i]).append(' ').append(completed[i])
                    .append(' ').append(add[i]).append('\n');
        }
        java.nio.file.Files.writeString(java.nio.file.Path.of(b.cfg.latencyDump), sb);
    }

    /**
     * e. {@code n} delayed jobs, due {@code delayMinMs} to {@code delayMinMs + spreadMs} after being added (added
     * through addBulk while a worker of {@code concurrency} runs). See {@link #delayed(int, int, IntToLongFunction,
     * double)}.
     */
    Run delayed(int n, int concurrency, int spreadMs) throws Exception {
        return delayed(n, concurrency, i -> b.cfg.delayMinMs + Math.round((double) i * spreadMs / n), spreadMs / 1000.0);
    }

    /**
     * {@code n} delayed jobs with the delays {@code delayMs} gives, added through addBulk while a worker runs.
     * Lateness = processor entry (wall clock ms) minus the job's timestamp plus its delay. {@code jobs_per_s} is n
     * over the whole window, so with a spread it mostly reflects the spread; {@code jobs_per_s_processing} runs
     * from the first to the last completion.
     */
    Run delayed(int n, int concurrency, IntToLongFunction delayMs, double dueWithinS) throws Exception {
        b.admin.flush();
        String name = "bench-delayed";
        AtomicLongArray late = new AtomicLongArray(n);
        Completions done = new Completions(n);
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect(); Queue queue = b.queue(name, qc)) {
            Worker worker = new Worker(name, job -> {
                long due = job.timestamp().toEpochMilli() + job.opts().delay().toMillis();
                late.set(index(job), System.currentTimeMillis() - due);
                return null;
            }, WorkerOptions.builder().connection(wc).concurrency(concurrency).build(), done);
            try {
                Sleep.ms(200);
                long mem0 = b.admin.usedMemory();
                Measure.Snapshot m = b.measure.begin();
                long ta = System.nanoTime();
                b.addBulkAll(queue, n, i -> JobOptions.builder().delay(Duration.ofMillis(delayMs.applyAsLong(i)))
                        .removeOnComplete(true).build());
                double addS = (System.nanoTime() - ta) / 1e9;
                long memAdded = b.admin.usedMemory();
                done.await(Completions.timeoutFor(n) + dueWithinS);
                Run cost = b.measure.end(m, n, 0);
                double[] s = new double[n];
                int early = 0;
                for (int i = 0; i < n; i++) {
                    s[i] = late.get(i);
                    early += s[i] < 0 ? 1 : 0;
                }
                double mean = Arrays.stream(s).average().orElse(Double.NaN);
                Arrays.sort(s);
                return new Run().put("jobs", n).put("add_s", addS)
                        .put("late_p50_ms", Stats.pct(s, 50)).put("late_p90_ms", Stats.pct(s, 90))
                        .put("late_p99_ms", Stats.pct(s, 99)).put("late_max_ms", s[n - 1])
                        .put("late_min_ms", s[0]).put("late_mean_ms", mean).put("early_jobs", early)
                        .put("jobs_per_s", n / cost.get("wall_s"))
                        .put("jobs_per_s_processing", (n - 1) / ((done.tLast() - done.tFirst()) / 1e9))
                        .put("mem_after_add_bytes_per_job", (double) (memAdded - mem0) / n)
                        .putAll(cost);
            } finally {
                worker.close();
            }
        }
    }
}
