package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The rate limiter's accuracy (issue 10): one worker limited to {@code max} jobs per second at {@code concurrency},
 * over {@code windows} one-second windows, then its cost while a manual limit holds it. The Node side:
 * {@code src/bench/node/driver.mjs --variant limiter/max1000-c50}.
 */
final class LimiterRuns {
    /** The events stream's cap in this mode: every job's active event must stay in it (max x (windows + 2) jobs). */
    static final int EVENTS_MAX_LEN = 200_000;
    private final Bench b;

    LimiterRuns(Bench b) {
        this.b = b;
    }

    /**
     * Prefills {@code max * (windows + 2)} jobs and processes them with an empty processor. The limiter's windows
     * are rebuilt from the times Redis ran the fetches (the ids of the {@code active} events, on the clock the
     * limiter key expires by): a window opens at the first fetch after the last one closed. The first window is
     * left out (start-up), the next {@code windows} are measured. The same from the jobs' {@code processedOn} (the
     * client's clock) is reported as {@code client_*}.
     */
    Run accuracy(int max, int windows, int concurrency) throws Exception {
        b.admin.flush();
        String name = "bench-limiter";
        int n = max * (windows + 2);
        CountDownLatch done = new CountDownLatch(n);
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect();
             Queue queue = new Queue(name, QueueOptions.builder().connection(qc).maxLenEvents(EVENTS_MAX_LEN).build())) {
            b.addBulkAll(queue, n, i -> null);
            Measure.Snapshot m = b.measure.begin();
            Worker worker = new Worker(name, job -> {
                done.countDown();
                return null;
            }, WorkerOptions.builder().connection(wc).concurrency(concurrency).limiter(max, Duration.ofSeconds(1))
                    .build());
            try {
                if (!done.await(windows * 3L + 30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("limiter run did not finish: " + done.getCount() + " left");
                }
                Run cost = b.measure.end(m, n, System.nanoTime());
                List<Long> fetched = new ArrayList<>(n);
                for (int id = 1; id <= n; id++) {
                    fetched.add(Long.parseLong(b.admin.sync.hget("bull:" + name + ":" + id, "processedOn")));
                }
                Run r = windows(perWindow(activeEvents(name), 1000L), windows, max, "");
                if (r.get("windows") < windows) {
                    throw new IllegalStateException("the events stream lost active events: " + r.values);
                }
                r.putAll(windows(perWindow(fetched, 1000L), windows, max, "client_"));
                r.put("jobs", n);
                r.put("node_cpu_us_per_job", cost.get("node_cpu_us_per_job"))
                        .put("redis_cpu_us_per_job", cost.get("redis_cpu_us_per_job"));
                // the worker's CPU per second over the whole limited run: each window is a burst of max jobs, then
                // a wait for the limiter
                r.put("run_client_cpu_ms_per_s", cost.get("node_cpu_s") * 1000 / cost.get("wall_s"))
                        .put("run_redis_cpu_ms_per_s", cost.get("redis_cpu_s") * 1000 / cost.get("wall_s"))
                        .put("other_util", cost.get("other_util"));
                r.putAll(idleWhileLimited(queue));
                return r;
            } finally {
                worker.close();
            }
        }
    }

    /**
     * The times (Redis's clock, ms) of the {@code active} events: the entry id of each is the time Redis ran the
     * fetch that took the job, on the clock the limiter key expires by. A job's {@code processedOn} is the client's
     * clock when it built the call, which on a loaded machine can be tens of ms before Redis ran it, so windows
     * rebuilt from it can show a job in the window before the one that counted it.
     */
    private List<Long> activeEvents(String name) {
        List<Long> out = new ArrayList<>();
        for (StreamMessage<String, String> m : b.admin.sync.xrange("bull:" + name + ":events", Range.create("-", "+"))) {
            if ("active".equals(m.getBody().get("event"))) {
                out.add(Long.parseLong(m.getId().substring(0, m.getId().indexOf('-'))));
            }
        }
        return out;
    }

    /** The measured windows' figures: the first window left out, the next {@code windows} counted. */
    private static Run windows(List<long[]> perWindow, int windows, int max, String prefix) {
        int last = Math.min(perWindow.size() - 1, windows + 1); // the window after the measured ones
        List<Integer> measured = perWindow.subList(1, last).stream().map(w -> (int) w[1]).toList();
        long span = perWindow.get(last)[0] - perWindow.get(1)[0];
        Run r = new Run().put(prefix + "windows", measured.size());
        // the rate over the measured windows, from the first fetch of the first to that of the next
        r.put(prefix + "jobs_per_s", measured.stream().mapToInt(Integer::intValue).sum() * 1000.0 / span);
        r.put(prefix + "window_mean", measured.stream().mapToInt(Integer::intValue).average().orElse(Double.NaN));
        r.put(prefix + "window_min", Collections.min(measured)).put(prefix + "window_max", Collections.max(measured));
        r.put(prefix + "windows_over_max", measured.stream().filter(c -> c > max).count());
        r.put(prefix + "max_deviation_pct", 100.0 * measured.stream().mapToInt(c -> Math.abs(c - max)).max()
                .orElse(0) / max);
        return r;
    }

    /**
     * The worker just finished; a manual limit of 10 s now holds it with jobs waiting. Its CPU and the Redis
     * commands it causes over 5 s of that.
     */
    private Run idleWhileLimited(Queue queue) throws Exception {
        queue.rateLimit(Duration.ofSeconds(10));
        for (int i = 0; i < 10; i++) {
            queue.add("bench", Map.of("i", i));
        }
        Sleep.ms(500);
        Map<String, Long> threadsBefore = Cpu.threadTicks();
        Measure.Snapshot m = b.measure.begin();
        Sleep.ms(5000);
        Run cost = b.measure.end(m, 1, System.nanoTime());
        Map<String, Long> threadsAfter = Cpu.threadTicks();
        StringBuilder busiest = new StringBuilder();
        threadsAfter.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0).sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                .forEach(e -> busiest.append(' ').append(e.getKey()).append('=').append(e.getValue() * 10).append("ms"));
        Log.log("while held by the limit, CPU by thread over 5 s:" + busiest);
        // bull4j's own threads (worker, fetch, scheduler, job pool; "bull4j" with its digit folded), apart from the
        // JVM's (JIT, GC, periodic tasks), Lettuce's timer and event loops, and the harness's main thread
        long own = threadsAfter.entrySet().stream().filter(e -> e.getKey().startsWith("bullNj"))
                .mapToLong(e -> e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L)).sum();
        double wall = cost.get("wall_s");
        long calls = cost.cmdstats.values().stream().mapToLong(v -> v[0]).sum();
        return new Run().put("limited_jvm_cpu_ms_per_s", cost.get("node_cpu_s") * 1000 / wall)
                .put("limited_client_cpu_ms_per_s", cost.get("node_cpu_s") * 1000 / wall)
                .put("limited_bull4j_threads_cpu_ms_per_s", own * 10.0 / wall)
                .put("limited_redis_cmds_per_s", calls / wall)
                .put("limited_redis_cpu_ms_per_s", cost.get("redis_cpu_s") * 1000 / wall);
    }

    /** The limiter's windows, rebuilt greedily from the sorted fetch times (ms): {start, count} each. */
    static List<long[]> perWindow(List<Long> starts, long windowMs) {
        Collections.sort(starts);
        List<long[]> windows = new ArrayList<>();
        long end = 0;
        for (long s : starts) {
            if (windows.isEmpty() || s >= end) {
                windows.add(new long[] {s, 0});
                end = s + windowMs;
            }
            windows.get(windows.size() - 1)[1]++;
        }
        return windows;
    }
}
