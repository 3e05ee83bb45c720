package io.bull4j.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The modes with no Node counterpart, named {@code scale/...} and {@code idle/...}; slow, so not in the default
 * {@code --modes}: {@code scale} runs the three below in turn, or pick {@code scale-waiting}, {@code scale-delayed},
 * {@code scale-depth}, {@code idle}.
 */
final class ScaleModes {
    private final Bench b;
    private final BenchConfig cfg;
    private final ScaleRuns runs;
    private final LatencyRuns lat;
    private final DepthRun depth;

    ScaleModes(Bench b) {
        this.b = b;
        this.cfg = b.cfg;
        this.runs = new ScaleRuns(b);
        this.lat = new LatencyRuns(b);
        this.depth = new DepthRun(b);
    }

    /** 1,000,000 -> "1m", 100,000 -> "100k", 0 -> "0". */
    static String label(int n) {
        if (n >= 1_000_000 && n % 1_000_000 == 0) {
            return n / 1_000_000 + "m";
        }
        return n >= 1000 && n % 1000 == 0 ? n / 1000 + "k" : Integer.toString(n);
    }

    void waiting() throws Exception {
        int n = cfg.scaleN;
        List<Run> rs = b.repeat("scale waiting " + n, cfg.scaleRuns,
                () -> runs.waiting(n, cfg.scaleConc, cfg.scaleRetention),
                () -> runs.waiting(cfg.warmupN, cfg.scaleConc, cfg.scaleRetention));
        b.emitter.emit("scale", "waiting-" + label(n) + "-c" + cfg.scaleConc + "-" + cfg.scaleRetention,
                Modes.params("n", n, "concurrency", cfg.scaleConc, "retention", cfg.scaleRetention,
                        "added_via", "addBulk chunks of " + cfg.chunk, "processor", "job -> null"), rs, Map.of());
    }

    /**
     * Delayed jobs at scale, two ways: spread evenly over {@code --scale-delay-spread-ms} (lateness with a large
     * delayed set), and a burst that all comes due at one moment after the adds (promotion + processing rate).
     */
    void delayed() throws Exception {
        int n = cfg.scaleDelayedN;
        int spread = cfg.scaleDelaySpreadMs;
        List<Run> rs = b.repeat("scale delayed spread " + n, cfg.scaleRuns,
                () -> lat.delayed(n, cfg.scaleConc, spread), () -> lat.delayed(cfg.warmupN, cfg.scaleConc, 500));
        b.emitter.emit("scale", "delayed-" + label(n) + "-spread" + spread + "ms-c" + cfg.scaleConc,
                Modes.params("n", n, "spread_ms", spread, "min_delay_ms", cfg.delayMinMs, "concurrency", cfg.scaleConc,
                        "redis_hz", b.admin.redisHz, "added_via", "addBulk chunks of " + cfg.chunk), rs, Map.of());
        // burst: every job due at the same wall-clock moment, far enough ahead for all adds to finish
        long leadMs = Math.max(1000, n / 10);
        List<Run> burst = b.repeat("scale delayed burst " + n, cfg.scaleRuns, () -> burst(n, leadMs), null);
        b.emitter.emit("scale", "delayed-" + label(n) + "-burst-c" + cfg.scaleConc,
                Modes.params("n", n, "due_after_ms", leadMs, "concurrency", cfg.scaleConc, "redis_hz", b.admin.redisHz,
                        "added_via", "addBulk chunks of " + cfg.chunk), burst, Map.of());
    }

    /** Here {@code jobs_per_s} is first to last completion: the window's start is only the wait for the due time. */
    private Run burst(int n, long leadMs) throws Exception {
        long due = System.currentTimeMillis() + leadMs;
        Run r = lat.delayed(n, cfg.scaleConc, i -> Math.max(1, due - System.currentTimeMillis()), leadMs / 1000.0);
        return r.put("jobs_per_s", r.get("jobs_per_s_processing"));
    }

    void depth() throws Exception {
        depth.run(0, Math.min(cfg.warmupN, cfg.depthNAdd), cfg.warmupN, 20, cfg.scaleConc); // warm-up, discarded
        Log.log("scale depth warmup done (discarded)");
        for (int d : cfg.depths) {
            List<Run> rs = b.repeat("scale depth " + d, cfg.scaleRuns,
                    () -> depth.run(d, cfg.depthNAdd, cfg.depthNProcess, cfg.depthProbes, cfg.scaleConc), null);
            b.emitter.emit("scale", "depth-" + label(d), Modes.params("depth", d, "n_add", cfg.depthNAdd,
                    "add_inflight", cfg.addInflight, "n_process", cfg.depthNProcess, "probes", cfg.depthProbes,
                    "concurrency", cfg.scaleConc, "probe_opts", "lifo"), rs, Map.of());
        }
    }

    /** The rate limiter's accuracy and its cost while limited (issue 10). */
    void limiter() throws Exception {
        LimiterRuns limiter = new LimiterRuns(b);
        List<Run> rs = b.repeat("limiter " + cfg.limiterMax + "/s c=" + cfg.limiterConc, cfg.scaleRuns,
                () -> limiter.accuracy(cfg.limiterMax, cfg.limiterWindows, cfg.limiterConc), null);
        b.emitter.emit("limiter", "max" + cfg.limiterMax + "-c" + cfg.limiterConc, Modes.params("max",
                cfg.limiterMax, "duration_ms", 1000, "windows", cfg.limiterWindows, "concurrency", cfg.limiterConc,
                "retention", "keep", "processor", "job -> null"), rs, Map.of());
    }

    /** Job schedulers at scale: iteration lateness and Redis CPU per iteration (issue 10). */
    void schedulers() throws Exception {
        SchedulerRuns sched = new SchedulerRuns(b);
        boolean remove = cfg.schedRetention.equals("remove");
        List<Run> rs = b.repeat("schedulers " + cfg.schedN + " every " + cfg.schedEveryMs + " ms c=" + cfg.schedConc
                        + " " + cfg.schedRetention, cfg.scaleRuns, () -> sched.run(cfg.schedN, cfg.schedEveryMs,
                        cfg.schedConc, cfg.schedWarmupS, cfg.schedDurationS, remove), null);
        b.emitter.emit("schedulers", "n" + cfg.schedN + "-c" + cfg.schedConc + (remove ? "-remove" : ""),
                Modes.params("schedulers", cfg.schedN, "every_ms", cfg.schedEveryMs, "concurrency", cfg.schedConc,
                        "warmup_s", cfg.schedWarmupS, "duration_s", cfg.schedDurationS, "retention",
                        cfg.schedRetention, "processor", "job -> null"), rs,
                Map.of("cmdstats_last_run", Modes.top(rs, (long) rs.get(rs.size() - 1).get("jobs"))));
    }

    void idle() throws Exception {
        Map<String, Object> perCommand = new LinkedHashMap<>();
        List<Run> rs = b.repeat("idle worker " + cfg.idleSeconds + " s", cfg.scaleRuns,
                () -> runs.idleWorker(cfg.idleSeconds, perCommand), null);
        b.emitter.emit("idle", "worker", Modes.params("seconds", cfg.idleSeconds, "concurrency", 1,
                "drain_delay_s", 5, "stalled_interval_s", 30), rs, Map.of("cmds_per_s_last_run", perCommand));
    }
}
