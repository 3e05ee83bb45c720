package io.bull4j.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of the harness. Flags and defaults mirror {@code bench/node/bullmq-bench.mjs} so that both
 * sides measure the same thing; {@code --flag value}, {@code --flag=value} and a bare {@code --flag} (= true) are
 * accepted. When run by {@code run-node-anchors.sh}, the environment variables {@code BENCH_PORT},
 * {@code BENCH_RUNS} and {@code BENCH_OUT} stand in for absent {@code --port}, {@code --runs} and {@code --out}.
 */
final class BenchConfig {
    static final List<String> KNOWN_MODES = List.of("add", "addBulk", "process", "latency", "delayed", "cost",
            "delayed-bulk", "scale", "scale-waiting", "scale-delayed", "scale-depth", "idle", "limiter", "schedulers",
            "flows", "flows-add", "flows-process");
    final Map<String, String> raw;
    final boolean quick;
    final String host;
    final int port;
    final int runs;
    final List<String> modes;
    final int nAdd;
    final int addInflight;
    final int nBulk;
    final int chunk;
    final int nProcess;
    final List<Integer> concs;
    final List<String> retentions;
    final int nLatency;
    final int latencyWarmup;
    final int nDelayed;
    final int delaySpreadMs;
    final int delayMinMs;
    final int delayedConc;
    final int costConc;
    /** process mode: the workers' WorkerOptions.metrics (0: off); --micrometer binds WorkerMetrics too. */
    final int workerMetrics;
    final boolean micrometer;
    /** --serve: after the JIT warm-up, run the modes again for every "run" line on stdin (BenchMain). */
    final boolean serve;
    final List<String> costCases;
    final int calibN;
    final int warmupN;
    final int jitWarmupN;
    final double quietWaitS;
    final double quietMaxUtil;
    final String out;
    final int payloadBytes;
    final String jfr;
    /** latency mode: the last run's per-job times are written to this file (see LatencyRuns), or null. */
    final String latencyDump;
    // scale and idle modes (no Node counterpart)
    final int scaleRuns;
    final int scaleN;
    final int scaleConc;
    final String scaleRetention;
    final int scaleDelayedN;
    final int scaleDelaySpreadMs;
    final List<Integer> depths;
    final int depthNAdd;
    final int depthNProcess;
    final int depthProbes;
    final int idleSeconds;
    // limiter mode (no Node counterpart yet)
    final int limiterMax;
    final int limiterWindows;
    final int limiterConc;
    // schedulers mode
    final int schedN;
    final int schedEveryMs;
    final int schedConc;
    final double schedWarmupS;
    final double schedDurationS;
    /** "keep" (every run stays in completed) or "remove" (the template's removeOnComplete). */
    final String schedRetention;
    // flows modes (issue 11)
    final int flowsN;
    final int flowsWidth;
    final int flowsInflight;
    final int flowsConc;

    BenchConfig(String[] args, Map<String, String> env) {
        raw = parse(args);
        quick = "true".equals(raw.get("quick")) || "1".equals(env.get("BENCH_QUICK"));
        host = str("host", "127.0.0.1");
        port = num("port", env.containsKey("BENCH_PORT") ? Integer.parseInt(env.get("BENCH_PORT")) : 6390);
        int envRuns = env.containsKey("BENCH_RUNS") ? Integer.parseInt(env.get("BENCH_RUNS")) : -1;
        runs = num("runs", envRuns > 0 ? envRuns : (quick ? 1 : 3));
        modes = list("modes", "add,addBulk,process,latency,delayed,cost");
        nAdd = num("n-add", quick ? 5000 : 50000);
        addInflight = num("add-inflight", 100);
        nBulk = num("n-bulk", quick ? 10000 : 100000);
        chunk = num("chunk", 1000);
        nProcess = num("n-process", quick ? 5000 : 50000);
        concs = list("conc", "1,10,100").stream().map(Integer::parseInt).toList();
        retentions = list("retention", "remove,keep");
        nLatency = num("n-latency", quick ? 300 : 2000);
        latencyWarmup = num("latency-warmup", 50);
        nDelayed = num("n-delayed", quick ? 2000 : 10000);
        delaySpreadMs = num("delay-spread-ms", 5000);
        delayMinMs = num("delay-min-ms", 100);
        delayedConc = num("delayed-conc", 10);
        costConc = num("cost-conc", 10);
        workerMetrics = num("worker-metrics", 0);
        micrometer = "true".equals(raw.get("micrometer"));
        serve = "true".equals(raw.get("serve"));
        costCases = raw.containsKey("cost-cases") ? list("cost-cases", "") : null;
        calibN = num("calib-n", quick ? 500 : 2000);
        warmupN = num("warmup-n", quick ? 300 : 2000);
        jitWarmupN = num("jit-warmup-n", quick ? 2000 : 20000);
        quietWaitS = dbl("quiet-wait-s", quick ? 0 : 60);
        quietMaxUtil = dbl("quiet-max-util", 0.3);
        out = raw.containsKey("out") ? raw.get("out") : env.get("BENCH_OUT");
        payloadBytes = num("payload-bytes", 0);
        jfr = raw.get("jfr");
        latencyDump = raw.get("latency-dump");
        scaleRuns = num("scale-runs", 1);
        scaleN = num("scale-n", quick ? 20000 : 1_000_000);
        scaleConc = num("scale-conc", 10);
        scaleRetention = str("scale-retention", "remove");
        scaleDelayedN = num("scale-delayed-n", quick ? 5000 : 100_000);
        scaleDelaySpreadMs = num("scale-delay-spread-ms", quick ? 2000 : 20000);
        depths = list("depths", quick ? "0,5000" : "0,50000,1000000").stream().map(Integer::parseInt).toList();
        depthNAdd = num("depth-n-add", quick ? 2000 : 100_000);
        depthNProcess = num("depth-n-process", quick ? 2000 : 100_000);
        depthProbes = num("depth-probes", quick ? 100 : 500);
        idleSeconds = num("idle-s", quick ? 30 : 60);
        limiterMax = num("limiter-max", 1000);
        limiterWindows = num("limiter-windows", quick ? 3 : 10);
        limiterConc = num("limiter-conc", 50);
        schedN = num("sched-n", quick ? 1000 : 10000);
        schedEveryMs = num("sched-every-ms", 1000);
        schedConc = num("sched-conc", 100);
        schedWarmupS = dbl("sched-warmup-s", quick ? 2 : 5);
        schedDurationS = dbl("sched-duration-s", quick ? 5 : 60);
        schedRetention = str("sched-retention", "keep");
        if (!schedRetention.equals("keep") && !schedRetention.equals("remove")) {
            throw new IllegalArgumentException("--sched-retention must be keep or remove, not " + schedRetention);
        }
        flowsN = num("flows-n", quick ? 200 : 1000);
        flowsWidth = num("flows-width", 10);
        flowsInflight = num("flows-inflight", 1);
        flowsConc = num("flows-conc", 10);
        for (String m : modes) {
            if (!KNOWN_MODES.contains(m)) {
                throw new IllegalArgumentException("unknown mode " + m + "; known: " + String.join(",", KNOWN_MODES));
            }
        }
        if (!retentions.stream().allMatch(r -> r.equals("keep") || r.equals("remove"))
                || !(scaleRetention.equals("keep") || scaleRetention.equals("remove"))) {
            throw new IllegalArgumentException("retention must be keep or remove");
        }
    }

    /** Same rules as the Node side's parseArgs: a flag without a value is "true". */
    static Map<String, String> parse(String[] argv) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                continue;
            }
            int eq = a.indexOf('=');
            if (eq > 0) {
                o.put(a.substring(2, eq), a.substring(eq + 1));
            } else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) {
                o.put(a.substring(2), argv[++i]);
            } else {
                o.put(a.substring(2), "true");
            }
        }
        return o;
    }

    String uri() {
        return "redis://" + host + ":" + port;
    }

    private String str(String k, String d) {
        return raw.getOrDefault(k, d);
    }

    private int num(String k, int d) {
        return raw.containsKey(k) ? (int) Double.parseDouble(raw.get(k)) : d;
    }

    private double dbl(String k, double d) {
        return raw.containsKey(k) ? Double.parseDouble(raw.get(k)) : d;
    }

    private List<String> list(String k, String d) {
        List<String> out = new ArrayList<>();
        for (String s : Arrays.asList(raw.getOrDefault(k, d).split(","))) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
