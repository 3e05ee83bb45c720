package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.Queue;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.RedisClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * bull4j's benchmark harness: the Java side of {@code bench/node/bullmq-bench.mjs}, writing the same
 * {@code bullmq-bench/1} JSON lines so that {@code summarize.mjs} puts both side by side. Run it with
 * {@code src/bench/run-bench.sh} (see docs/benchmarks.md); it is a program, not a test.
 *
 * <pre>{@code src/bench/run-bench.sh --port 6395 [--runs 3] [--modes add,addBulk,process,latency,delayed,cost]
 *     [--out results.jsonl] [--quick]}</pre>
 * (more modes: delayed-bulk, scale..., idle, limiter, schedulers, flows...; see docs/benchmarks.md)
 *
 * <p>Exit status 0 when every mode ran, 1 on a failure, 2 on a bad command line.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        BenchConfig cfg;
        try {
            cfg = new BenchConfig(args, System.getenv());
        } catch (RuntimeException e) {
            System.err.println("bad arguments: " + e.getMessage());
            System.exit(2);
            return;
        }
        int status = 0;
        try (Bench b = new Bench(cfg)) {
            Map<String, Object> envelope = envelope(b);
            b.emitter = new Emitter(envelope, cfg.out);
            Modes modes = new Modes(b);
            ScaleModes scale = new ScaleModes(b);
            Log.log(String.format("bull4j %s, %s, %s, redis %s pid %d (local /proc: %s) at %s:%d; runs=%d; modes=%s",
                    envelope.get("impl_version"), envelope.get("client"), runtime(), b.admin.redisVersion,
                    b.admin.redisPid, b.admin.redisLocal, cfg.host, cfg.port, cfg.runs, String.join(",", cfg.modes)));
            modes.jitWarmup(cfg.jitWarmupN);
            if (cfg.modes.stream().anyMatch(m -> m.startsWith("flows"))) {
                modes.flowsJitWarmup(cfg.jitWarmupN);
            }
            if (cfg.jfr != null) {
                b.measure.profiler = new Profiler(cfg.jfr); // after the JIT warm-up: measured windows only
            }
            if (cfg.serve) {
                serve(cfg, modes, scale);
            } else {
                runModes(cfg, modes, scale);
            }
        } catch (Exception e) {
            Log.log("FAILED: " + e);
            e.printStackTrace(System.err);
            status = 1;
        }
        System.exit(status);
    }

    /**
     * --serve, for interleave.mjs --close: the JVM is warmed once, then every "run" line on stdin runs the modes
     * again (each with its own warm-up pass and measured runs, as a fresh process would after its JIT warm-up) and is
     * answered by {@code {"serve":"done"}} after the result lines; EOF or "quit" ends it. So a pair's measured windows
     * are seconds apart instead of a JVM start and JIT warm-up apart, and the machine's drift between them is smaller.
     */
    private static void serve(BenchConfig cfg, Modes modes, ScaleModes scale) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("{\"serve\":\"ready\"}");
        System.out.flush();
        for (String line; (line = in.readLine()) != null && !line.strip().equals("quit"); ) {
            if (!line.strip().equals("run")) {
                throw new IllegalArgumentException("--serve: unknown command " + line);
            }
            runModes(cfg, modes, scale);
            System.out.println("{\"serve\":\"done\"}");
            System.out.flush();
        }
    }

    private static void runModes(BenchConfig cfg, Modes modes, ScaleModes scale) throws Exception {
        for (String mode : cfg.modes) {
            switch (mode) {
                case "add" -> modes.add();
                case "addBulk" -> modes.addBulk();
                case "process" -> modes.process();
                case "latency" -> modes.latency();
                case "delayed" -> modes.delayed();
                case "delayed-bulk" -> modes.delayedBulk();
                case "cost" -> modes.cost();
                case "scale" -> {
                    scale.waiting();
                    scale.delayed();
                    scale.depth();
                }
                case "scale-waiting" -> scale.waiting();
                case "scale-delayed" -> scale.delayed();
                case "scale-depth" -> scale.depth();
                case "idle" -> scale.idle();
                case "limiter" -> scale.limiter();
                case "schedulers" -> scale.schedulers();
                case "flows" -> {
                    modes.flowsAdd();
                    modes.flowsProcess();
                }
                case "flows-add" -> modes.flowsAdd();
                case "flows-process" -> modes.flowsProcess();
                default -> throw new IllegalArgumentException("unknown mode " + mode); // BenchConfig checked
            }
        }
    }

    /** The fields every line shares, in the Node side's order. */
    private static Map<String, Object> envelope(Bench b) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("schema", "bullmq-bench/1");
        e.put("impl", "java-bull4j");
        e.put("impl_version", implVersion(b));
        e.put("client", "lettuce " + lettuceVersion() + (epoll() ? " (epoll)" : " (nio)"));
        e.put("runtime", runtime());
        e.put("redis_version", b.admin.redisVersion);
        e.put("redis_hz", b.admin.redisHz);
        e.put("host", Cpu.cpus() + " cpu, " + Math.round(Cpu.totalMemoryBytes() / Math.pow(2, 30)) + " GiB");
        return e;
    }

    /** bull4j's own version, as a Queue writes it to its meta hash ({@code bull4j:<version>}). */
    private static String implVersion(Bench b) {
        b.admin.flush();
        try (Bull4jConnection c = b.connect(); Queue q = b.queue("bench-version", c)) {
            String v = b.admin.sync.hget(new QueueKeys(q.options().prefix(), q.name()).meta(), "version");
            return v == null ? "unknown" : v.replaceFirst("^bull4j:", "");
        } finally {
            b.admin.flush();
        }
    }

    static String runtime() {
        return "java " + System.getProperty("java.version") + " " + System.getProperty("java.vm.name");
    }

    static String lettuceVersion() {
        String v = RedisClient.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }

    /** Whether Lettuce runs on Netty's native epoll transport (else NIO). */
    static boolean epoll() {
        return io.lettuce.core.resource.EpollProvider.isAvailable();
    }
}
