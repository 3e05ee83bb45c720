package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.JobOptions;
import io.bull4j.JobTemplate;
import io.bull4j.Queue;
import io.bull4j.RepeatOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Job schedulers at scale (issue 10), the same run as {@code src/bench/node/driver.mjs --variant schedulers/...}:
 * {@code n} schedulers {@code every} ms, each with a start date of its own so that their runs fall evenly over each
 * interval, on both sides alike (see {@link #create}), processed by one worker at {@code concurrency} with an empty
 * processor. After {@code warmup} seconds from the first run, a window of {@code duration} seconds is measured: every
 * iteration whose processor starts inside it counts, with its lateness (processor entry, wall clock ms, minus the
 * due time that its id {@code repeat:<id>:<millis>} carries), and the CPU of the JVM and Redis over the window.
 * A {@link StallWatch} over the window tells a stall of the machine or of Redis from one of the worker's.
 * With {@code remove}, the template sets {@code removeOnComplete}: the keyspace stays flat instead of growing by
 * one job hash per run (keep), whose doublings of Redis's main hash table slow every command while it rehashes.
 */
final class SchedulerRuns {
    /** Upserts in flight while the schedulers are created (a pool of threads, each paced by due time). */
    private static final int CREATE_THREADS = 8;

    private final Bench b;

    SchedulerRuns(Bench b) {
        this.b = b;
    }

    Run run(int n, long everyMs, int concurrency, double warmupS, double durationS, boolean remove)
            throws Exception {
        b.admin.flush();
        String name = "bench-schedulers";
        int capacity = (int) Math.min(Integer.MAX_VALUE - 8, (long) (n * 1000.0 / everyMs * durationS * 1.2) + 1000);
        long[] late = new long[capacity];
        long[] at = b.cfg.latencyDump != null ? new long[capacity] : null; // processor entry, wall clock ms
        AtomicInteger count = new AtomicInteger();
        // the measured window, in wall-clock ms; processor entries outside it are not recorded
        AtomicLong from = new AtomicLong(Long.MAX_VALUE);
        AtomicLong until = new AtomicLong(Long.MAX_VALUE);
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect(); Queue queue = b.queue(name, qc);
             StallWatch stalls = new StallWatch(b.admin)) {
            Worker worker = new Worker(name, job -> {
                long now = System.currentTimeMillis();
                if (now >= from.get() && now < until.get()) {
                    String id = job.id();
                    long due = Long.parseLong(id.substring(id.lastIndexOf(':') + 1));
                    int i = count.getAndIncrement();
                    if (i < late.length) {
                        late[i] = now - due;
                        if (at != null) {
                            at[i] = now;
                        }
                    }
                }
                return null;
            }, WorkerOptions.builder().connection(wc).concurrency(concurrency).build());
            try {
                Created created = create(queue, n, everyMs, remove);
                // the warm-up counts from the first run
                long start = created.firstDueMs() + Math.round(warmupS * 1000);
                Sleep.ms(Math.max(0, start - System.currentTimeMillis()));
                Map<String, Long> threadsBefore = Cpu.threadTicks();
                Measure.Snapshot m = b.measure.begin();
                stalls.begin();
                long begun = System.currentTimeMillis();
                long end = begun + Math.round(durationS * 1000);
                until.set(end);
                from.set(begun);
                Sleep.ms(Math.max(0, end - System.currentTimeMillis()));
                stalls.end();
                int iterations = Math.min(count.get(), late.length);
                Run cost = b.measure.end(m, Math.max(1, iterations), System.nanoTime());
                Map<String, Long> threadsAfter = Cpu.threadTicks();
                StringBuilder busiest = new StringBuilder();
                threadsAfter.entrySet().stream()
                        .map(e -> Map.entry(e.getKey(), e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L)))
                        .filter(e -> e.getValue() > 0).sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .limit(10).forEach(e -> busiest.append(' ').append(e.getKey()).append('=')
                                .append(Math.round(e.getValue() * 10.0 / Math.max(1, iterations) * 1000))
                                .append("us"));
                Log.log("JVM CPU by thread per iteration:" + busiest);
                if (at != null) {
                    dump(at, late, iterations);
                    java.nio.file.Files.writeString(java.nio.file.Path.of(b.cfg.latencyDump + ".stalls"),
                            stalls.notable());
                }
                Run r = result(n, everyMs, concurrency, durationS, created, late, iterations, cost, queue);
                stalls.report(r);
                return r;
            } finally {
                worker.close();
            }
        }
    }

    /**
     * --latency-dump F: one line per measured run, "entry_ms lateness_ms", to see when the slow runs fall; and
     * F.stalls, the stall watch's notable ticks ("wall_ms late_ms echo_ms"), to see what happened then.
     */
    private void dump(long[] at, long[] late, int iterations) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < iterations; i++) {
            sb.append(at[i]).append(' ').append(late[i]).append('\n');
        }
        java.nio.file.Files.writeString(java.nio.file.Path.of(b.cfg.latencyDump), sb);
    }

    private Run result(int n, long everyMs, int concurrency, double durationS, Created created, long[] late,
                       int iterations, Run cost, Queue queue) {
        double[] lateMs = Arrays.stream(late, 0, iterations).mapToDouble(v -> v).toArray();
        Run r = new Run().put("schedulers", n).put("every_ms", everyMs).put("concurrency", concurrency)
                .put("create_s", created.seconds()).put("late_upserts", created.lateUpserts()).put("jobs", iterations);
        double offered = n * 1000.0 / everyMs;
        r.put("offered_per_s", offered);
        r.put("jobs_per_s", iterations / cost.get("wall_s"));
        r.put("sustained_fraction", iterations / cost.get("wall_s") / offered);
        Map<String, Double> dist = Stats.dist(lateMs, "late");
        r.putAll(dist);
        r.put("late_over_10ms_pct", 100.0 * Arrays.stream(lateMs).filter(v -> v > 10).count() / Math.max(1, iterations));
        r.putAll(cost);
        r.put("waiting_at_end", queue.getJobCounts(io.bull4j.JobState.WAITING).get(io.bull4j.JobState.WAITING));
        return r;
    }

    /** How far ahead of the creation the first runs start: the upserts must all be done by then. */
    private static final long LEAD_MS = 5_000;

    /** What the creation took, and when the first run falls due (wall clock ms). */
    record Created(double seconds, long firstDueMs, int lateUpserts) {
    }

    /**
     * Upserts the schedulers as fast as they go, scheduler {@code i} with the start date {@code T + i * every / n},
     * {@code T} a lead ahead: its first run, and with it every later one, takes its own even place in the interval
     * however long the upserts take. (Upserts paced through one interval, each running at once, spread the runs
     * unevenly when the creation took longer than the interval: in 2.9 s of upserts, the eighths of each second
     * were due from 24 % fewer to 9 % more runs than the mean.) An upsert that ends after its start date may have
     * started its first run late, out of its place; they are counted (0 in every run so far).
     */
    private static Created create(Queue queue, int n, long everyMs, boolean remove) throws Exception {
        JobTemplate template = remove
                ? JobTemplate.of("bench", Map.of(), JobOptions.builder().removeOnComplete(true).build())
                : JobTemplate.of("bench", Map.of());
        long began = System.nanoTime();
        long firstDue = System.currentTimeMillis() + LEAD_MS;
        AtomicInteger late = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CREATE_THREADS);
        try {
            Future<?>[] fs = new Future<?>[CREATE_THREADS];
            for (int k = 0; k < CREATE_THREADS; k++) {
                int lane = k;
                fs[k] = pool.submit(() -> {
                    for (int i = lane; i < n; i += CREATE_THREADS) {
                        long due = firstDue + (long) Math.floor(i * (double) everyMs / n);
                        RepeatOptions every = RepeatOptions.builder().every(Duration.ofMillis(everyMs))
                                .startDate(Instant.ofEpochMilli(due)).build();
                        queue.upsertJobScheduler("s" + i, every, template);
                        if (System.currentTimeMillis() >= due) {
                            late.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        double s = (System.nanoTime() - began) / 1e9;
        Log.log(String.format("created %d schedulers every %d ms in %.2f s (first runs due %d ms after the start; "
                + "%d upserts ended after their start date)", n, everyMs, s, LEAD_MS, late.get()));
        return new Created(s, firstDue, late.get());
    }
}
