package io.bull4j.bench;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;

/**
 * The Node side's modes, with its mode, variant, params and metric names: add, addBulk, process, latency,
 * delayed and cost (a MONITOR calibration pass, then measured runs).
 */
final class Modes {
    private final Bench b;
    private final BenchConfig cfg;
    private final ThroughputRuns thr;
    private final LatencyRuns lat;

    Modes(Bench b) {
        this.b = b;
        this.cfg = b.cfg;
        this.thr = new ThroughputRuns(b);
        this.lat = new LatencyRuns(b);
    }

    /**
     * One pass, before any mode, through the code paths every mode uses (adds, addBulk, processing, events,
     * delayed jobs), so that the JIT has compiled them before the first measured run: the per-variant warm-up of
     * 2,000 jobs that suits V8 left the first measured c=10 run of a fresh JVM at about twice the CPU per job of
     * later runs. The sequential latency path (add, fetch after a blocking wait, finish, the completed event read)
     * gets n when the latency mode is to be measured, else a quarter of n: a method called once per job reaches
     * C2's threshold (about 15,000 calls) only after that many jobs, and with 1,000, then 5,000, C2 was still
     * compiling those methods during the measured window, where the jobs started next to a compilation made half
     * of that variant's p99 (see docs/benchmarks.md). A process mode at another concurrency gets its own pass too:
     * from 40 up a finish's answer is handled on another path (JobRunner.FinishAnswer, ReadyWork), and with only
     * the c=10 pass the first measured c=100 run of a fresh JVM spent 32 us of JVM CPU per job against 9-13 in the
     * runs after it.
     */
    void jitWarmup(int n) throws Exception {
        if (n <= 0) {
            return;
        }
        long t = System.nanoTime();
        thr.addBulk(n);
        thr.process(n, 10, "keep");
        thr.process(n, 10, "remove");
        if (cfg.modes.contains("process")) {
            for (int c : cfg.concs) {
                if (c != 10) {
                    for (String retention : cfg.retentions) {
                        thr.process(n, c, retention);
                    }
                }
            }
        }
        thr.add(n / 2, cfg.addInflight);
        thr.add(Math.min(n / 10, 2000), 1);
        lat.latency(cfg.modes.contains("latency") ? n : n / 4, 0);
        lat.delayed(n / 2, cfg.delayedConc, 1000);
        Log.log(String.format("JIT warm-up (%d jobs per path, discarded, %.1f s)", n, (System.nanoTime() - t) / 1e9));
    }

    void add() throws Exception {
        // --add-inflight 1 runs the sequential variant alone (the interleaved driver measures one variant a run)
        int[] inflights = cfg.addInflight > 1 ? new int[] {1, cfg.addInflight} : new int[] {1};
        for (int inflight : inflights) {
            List<Run> runs = b.repeat("add inflight=" + inflight, cfg.runs, () -> thr.add(cfg.nAdd, inflight),
                    () -> thr.add(cfg.warmupN, inflight));
            b.emitter.emit("add", inflight == 1 ? "sequential" : "inflight" + inflight,
                    params("n", cfg.nAdd, "inflight", inflight), runs, Map.of("cmdstats_last_run", top(runs, cfg.nAdd)));
        }
    }

    void addBulk() throws Exception {
        List<Run> runs = b.repeat("addBulk", cfg.runs, () -> thr.addBulk(cfg.nBulk), () -> thr.addBulk(cfg.warmupN));
        b.emitter.emit("addBulk", "chunk" + cfg.chunk, params("n", cfg.nBulk, "chunk", cfg.chunk), runs,
                Map.of("cmdstats_last_run", top(runs, cfg.nBulk)));
    }

    void process() throws Exception {
        for (String retention : cfg.retentions) {
            for (int c : cfg.concs) {
                List<Run> runs = b.repeat("process c=" + c + " " + retention, cfg.runs,
                        () -> thr.process(cfg.nProcess, c, retention), () -> thr.process(cfg.warmupN, c, retention));
                String extra = (cfg.workerMetrics > 0 ? "-metrics" : "") + (cfg.micrometer ? "-micrometer" : "");
                b.emitter.emit("process", "c" + c + "-" + retention + extra, params("n", cfg.nProcess,
                        "concurrency", c,
                        "retention", retention, "processor", "job -> null"), runs,
                        Map.of("cmdstats_last_run", top(runs, cfg.nProcess)));
            }
        }
    }

    void latency() throws Exception {
        List<Run> runs = b.repeat("latency", cfg.runs, () -> lat.latency(cfg.nLatency, cfg.latencyWarmup),
                () -> lat.latency(Math.min(cfg.warmupN, 500), cfg.latencyWarmup));
        b.emitter.emit("latency", "c1-sequential", params("n", cfg.nLatency, "warmup", cfg.latencyWarmup,
                "concurrency", 1, "retention", "keep"), runs, Map.of());
    }

    void delayed() throws Exception {
        List<Run> runs = b.repeat("delayed", cfg.runs, () -> lat.delayed(cfg.nDelayed, cfg.delayedConc, cfg.delaySpreadMs),
                () -> lat.delayed(cfg.warmupN, cfg.delayedConc, 500));
        b.emitter.emit("delayed", "spread" + cfg.delaySpreadMs + "ms-c" + cfg.delayedConc + "-hz" + b.admin.redisHz,
                params("n", cfg.nDelayed, "spread_ms", cfg.delaySpreadMs, "min_delay_ms", cfg.delayMinMs,
                        "concurrency", cfg.delayedConc, "redis_hz", b.admin.redisHz,
                        "added_via", "addBulk chunks of " + cfg.chunk), runs, Map.of());
    }

    /** Issue 15: delayed jobs coming due while a bulk add of {@code --n-delayed} of them runs (DelayedRuns). */
    void delayedBulk() throws Exception {
        DelayedRuns dr = new DelayedRuns(b);
        List<Run> runs = b.repeat("delayed bulk", cfg.runs, () -> dr.bulk(cfg.nDelayed, cfg.delayedConc),
                () -> dr.bulk(cfg.warmupN, cfg.delayedConc));
        b.emitter.emit("delayed", "bulk" + cfg.nDelayed, params("n", cfg.nDelayed, "chunk", cfg.chunk,
                "delay_ms", "50 + (i mod chunk) * 2000 / chunk", "concurrency", cfg.delayedConc,
                "retention", "remove", "redis_hz", b.admin.redisHz), runs,
                Map.of("cmdstats_last_run", top(runs, cfg.nDelayed)));
    }

    /** The flows' own paths through the JIT before their first measured run: {@code n} jobs' worth of each. */
    void flowsJitWarmup(int n) throws Exception {
        if (n <= 0) {
            return;
        }
        long t = System.nanoTime();
        FlowRuns flows = new FlowRuns(b);
        int count = Math.max(10, n / (cfg.flowsWidth + 1));
        flows.add(count, cfg.flowsWidth, cfg.flowsInflight);
        flows.process(count, cfg.flowsWidth, cfg.flowsConc);
        Log.log(String.format("flows JIT warm-up (%d flows per path, discarded, %.1f s)", count,
                (System.nanoTime() - t) / 1e9));
    }

    /** Flows of 1 parent + {@code --flows-width} children: adding them, one FlowProducer.add call each. */
    void flowsAdd() throws Exception {
        FlowRuns flows = new FlowRuns(b);
        int w = cfg.flowsWidth;
        int k = cfg.flowsInflight;
        List<Run> runs = b.repeat("flows add 1x" + w + " inflight=" + k, cfg.runs, () -> flows.add(cfg.flowsN, w, k),
                () -> flows.add(flowsWarmup(), w, k));
        b.emitter.emit("flows", "add-1x" + w + (k > 1 ? "-inflight" + k : ""), params("flows", cfg.flowsN,
                "children_per_flow", w, "inflight", k, "jobs_per_flow", w + 1), runs,
                Map.of("cmdstats_last_run", top(runs, (long) cfg.flowsN * (w + 1))));
    }

    /** Flows prefilled, then processed to the parents' completion by one worker per queue. */
    void flowsProcess() throws Exception {
        FlowRuns flows = new FlowRuns(b);
        int w = cfg.flowsWidth;
        int c = cfg.flowsConc;
        List<Run> runs = b.repeat("flows process 1x" + w + " c=" + c, cfg.runs, () -> flows.process(cfg.flowsN, w, c),
                () -> flows.process(flowsWarmup(), w, c));
        b.emitter.emit("flows", "process-1x" + w + "-c" + c, params("flows", cfg.flowsN, "children_per_flow", w,
                "concurrency", c, "jobs_per_flow", w + 1, "retention", "keep",
                "processor", "children: job -> null; parent: job.getChildrenValues(), null"), runs,
                Map.of("cmdstats_last_run", top(runs, (long) cfg.flowsN * (w + 1))));
    }

    /** The flows of a warm-up pass: --warmup-n jobs' worth (at least 10 flows). */
    private int flowsWarmup() {
        return Math.max(10, (int) Math.ceil(cfg.warmupN / (double) (cfg.flowsWidth + 1)));
    }

    /** f. Redis cost per job, each case after an untimed MONITOR pass (which doubles as its warm-up). */
    void cost() throws Exception {
        record Case(String mode, String variant, Map<String, Object> params, IntFunction<Callable<Run>> fn, int n) {
        }
        int c = cfg.costConc;
        List<Case> cases = List.of(
                new Case("addBulk", "chunk" + cfg.chunk, params("n", cfg.nBulk, "chunk", cfg.chunk),
                        n -> () -> thr.addBulk(n), cfg.nBulk),
                new Case("process", "c" + c + "-keep", params("n", cfg.nProcess, "concurrency", c, "retention", "keep"),
                        n -> () -> thr.process(n, c, "keep"), cfg.nProcess),
                new Case("process", "c" + c + "-remove", params("n", cfg.nProcess, "concurrency", c,
                        "retention", "remove"), n -> () -> thr.process(n, c, "remove"), cfg.nProcess),
                new Case("add", "sequential", params("n", cfg.nAdd, "inflight", 1), n -> () -> thr.add(n, 1), cfg.nAdd));
        for (Case k : cases) {
            if (cfg.costCases != null && !cfg.costCases.contains(k.mode())
                    && !cfg.costCases.contains(k.mode() + "/" + k.variant())) {
                continue;
            }
            Calibration calib;
            try (Monitor mon = new Monitor(cfg.host, cfg.port)) {
                b.measure.monitor = mon;
                try {
                    k.fn().apply(cfg.calibN).call();
                } finally {
                    b.measure.monitor = null;
                }
                mon.awaitEnd();
                calib = Calibration.of(mon, cfg.calibN);
            }
            Log.log("calibration " + k.mode() + "/" + k.variant() + ": client " + calib.clientPerJob() + "/job, lua "
                    + calib.luaPerJob() + "/job " + calib.perJob(calib.client()));
            List<Run> runs = b.repeat("cost " + k.mode() + " " + k.variant(), cfg.runs, k.fn().apply(k.n()), null);
            runs.forEach(r -> Measure.applyCalibration(r, calib, k.n()));
            Map<String, Object> cal = new LinkedHashMap<>();
            cal.put("jobs", cfg.calibN);
            cal.put("client_cmds_per_job", calib.perJob(calib.client()));
            cal.put("lua_cmds_per_job", calib.perJob(calib.lua()));
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("calibration", cal);
            extra.put("cmdstats_last_run", top(runs, k.n()));
            b.emitter.emit("cost-" + k.mode(), k.variant(), k.params(), runs, extra);
        }
    }

    /** The last run's commandstats per job, by usec, top 15 (as the Node side's topCmds). */
    static Map<String, Object> top(List<Run> runs, long jobs) {
        Map<String, Object> out = new LinkedHashMap<>();
        runs.get(runs.size() - 1).cmdstats.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[1]).reversed())
                .limit(15).forEach(e -> {
                    Map<String, Double> v = new LinkedHashMap<>();
                    v.put("calls_per_job", Stats.r3(e.getValue()[0] / (double) jobs));
                    v.put("usec_per_job", Stats.r3(e.getValue()[1] / (double) jobs));
                    out.put(e.getKey(), v);
                });
        return out;
    }

    static Map<String, Object> params(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
