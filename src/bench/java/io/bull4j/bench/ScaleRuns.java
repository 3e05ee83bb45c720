package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.internal.keys.QueueKeys;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs with no Node counterpart: a million waiting jobs then processing them, and an idle worker's cost.
 * (Delayed jobs at scale reuse {@link LatencyRuns#delayed}; the depth sweep is {@link DepthRun}.)
 */
final class ScaleRuns {
    private final Bench b;

    ScaleRuns(Bench b) {
        this.b = b;
    }

    /**
     * {@code n} jobs added through addBulk (measured as the add phase), then processed by one worker of
     * {@code concurrency} (the process phase; {@code jobs_per_s} is first to last completion). Redis memory and
     * JVM heap (after a full GC) are read when the jobs wait and once they are done.
     */
    Run waiting(int n, int concurrency, String retention) throws Exception {
        b.admin.flush();
        QueueKeys keys = new QueueKeys(QueueKeys.DEFAULT_PREFIX, "bench-scale");
        boolean remove = retention.equals("remove");
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect();
             Queue queue = b.queue(keys.name(), qc)) {
            Run r = new Run().put("jobs", n);
            r.put("jvm_heap_before_mb", JvmStats.heapAfterGcMb());
            long mem0 = b.admin.usedMemory();
            JobOptions opts = remove ? JobOptions.builder().removeOnComplete(true).build() : null;
            long[] gc0 = JvmStats.gc();
            Measure.Snapshot m = b.measure.begin();
            b.addBulkAll(queue, n, i -> opts);
            Run add = b.measure.end(m, n, System.nanoTime());
            long memWaiting = b.admin.usedMemory();
            long evWaiting = b.admin.keyBytes(keys.events());
            r.put("add_jobs_per_s", n / add.get("wall_s")).put("add_wall_s", add.get("wall_s"))
                    .put("add_node_cpu_us_per_job", add.get("node_cpu_us_per_job"))
                    .put("add_redis_cpu_us_per_job", add.get("redis_cpu_us_per_job"));
            JvmStats.putGcSince(add, gc0);
            r.put("add_jvm_gc_count", add.get("jvm_gc_count")).put("add_jvm_gc_ms", add.get("jvm_gc_ms"));
            r.put("redis_used_memory_waiting_mb", memWaiting / 1048576.0)
                    .put("mem_waiting_bytes_per_job", (double) (memWaiting - mem0) / n)
                    .put("mem_waiting_excl_events_bytes_per_job", (double) (memWaiting - mem0 - evWaiting) / n)
                    .put("jvm_heap_waiting_mb", JvmStats.heapAfterGcMb());

            Completions done = new Completions(n);
            Worker worker = new Worker(keys.name(), job -> null, WorkerOptions.builder().connection(wc)
                    .concurrency(concurrency).autorun(false).build(), done);
            try {
                long[] gc1 = JvmStats.gc();
                Measure.Snapshot p = b.measure.begin();
                worker.run();
                done.await(Completions.timeoutFor(n));
                Run cost = b.measure.end(p, n, done.tLast());
                JvmStats.putGcSince(cost, gc1);
                r.put("jobs_per_s", (n - 1) / ((done.tLast() - done.tFirst()) / 1e9))
                        .put("jobs_per_s_first_10pct", done.tenthRate(1))
                        .put("jobs_per_s_last_10pct", done.tenthRate(10))
                        .putAll(cost);
                r.put("jvm_heap_after_mb", JvmStats.heapAfterGcMb()); // the worker still open
            } finally {
                worker.close();
            }
            long memAfter = b.admin.usedMemory();
            r.put("redis_used_memory_after_mb", memAfter / 1048576.0)
                    .put("mem_after_bytes_per_job", (double) (memAfter - mem0) / n)
                    .put("mem_events_stream_bytes", b.admin.keyBytes(keys.events()));
            ThroughputRuns.checkCounts(queue, remove ? 0 : n);
            return r;
        }
    }

    /**
     * An idle worker (default options: concurrency 1, drainDelay 5 s, stalled check every 30 s) on an empty queue,
     * for {@code seconds}: the Redis commands per second it causes and the CPU it and Redis use.
     */
    Run idleWorker(int seconds, Map<String, Object> perCommand) throws Exception {
        b.admin.flush();
        String name = "bench-idle";
        try (Bull4jConnection wc = b.connect()) {
            Worker worker = new Worker(name, job -> null, WorkerOptions.builder().connection(wc).build());
            try {
                Sleep.ms(2000); // past the start-up calls (first fetch, first stalled check)
                Measure.Snapshot m = b.measure.begin();
                Sleep.ms(seconds * 1000L);
                Run cost = b.measure.end(m, 1, 0);
                double wall = cost.get("wall_s");
                long calls = cost.cmdstats.values().stream().mapToLong(v -> v[0]).sum();
                perCommand.clear();
                cost.cmdstats.forEach((k, v) -> perCommand.put(k, Stats.r3(v[0] / wall)));
                Map<String, Double> out = new LinkedHashMap<>();
                out.put("idle_s", wall);
                out.put("redis_cmds_per_s", calls / wall);
                out.put("script_calls_per_s", cost.get("script_calls_per_job") / wall);
                out.put("jvm_cpu_ms_per_s", cost.get("node_cpu_s") * 1000 / wall);
                out.put("jvm_cpu_proc_ms_per_s", cost.get("node_cpu_proc_s") * 1000 / wall);
                out.put("redis_cpu_ms_per_s", cost.get("redis_cpu_s") * 1000 / wall);
                Run r = new Run();
                out.forEach(r::put);
                r.put("node_util", cost.get("node_util")).put("redis_util", cost.get("redis_util"))
                        .put("other_util", cost.get("other_util"));
                return r;
            } finally {
                worker.close();
            }
        }
    }
}
