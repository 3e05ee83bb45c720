package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.BulkJob;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;

/**
 * What every mode shares: the configuration, the harness's Redis connection and counters, the result writer, and
 * the conventions of the Node side (payload {@code {i}}, job name {@code bench}, prefill through addBulk chunks,
 * a discarded warm-up pass, a quiet-machine wait before each measured run).
 *
 * <p>bull4j's connections come from one Lettuce client made like bull4j's own ({@code RedisLink.open}); each Queue
 * and Worker of a run gets a connection of its own, as each BullMQ Queue and Worker opens its own ioredis
 * connection on the Node side.
 */
final class Bench implements AutoCloseable {
    final BenchConfig cfg;
    final RedisClient client;
    final RedisAdmin admin;
    final Measure measure;
    Emitter emitter;

    Bench(BenchConfig cfg) {
        this.cfg = cfg;
        this.client = RedisClient.create(cfg.uri());
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(10)).build())
                .build());
        this.admin = new RedisAdmin(client);
        this.measure = new Measure(admin);
    }

    /** A fresh bull4j connection on the shared client; the caller closes it. */
    Bull4jConnection connect() {
        return Bull4jConnection.using(client);
    }

    Queue queue(String name, Bull4jConnection connection) {
        return new Queue(name, QueueOptions.builder().connection(connection).build());
    }

    /** The job payload: {@code {i}}, plus a padding string with {@code --payload-bytes}. */
    Map<String, Object> jobData(int i) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("i", i);
        if (cfg.payloadBytes > 0) {
            d.put("p", "x".repeat(cfg.payloadBytes));
        }
        return d;
    }

    /** Adds {@code n} jobs named {@code bench}, one addBulk call of {@code --chunk} jobs at a time. */
    void addBulkAll(Queue queue, int n, IntFunction<JobOptions> opts) {
        for (int s = 0; s < n; s += cfg.chunk) {
            int e = Math.min(n, s + cfg.chunk);
            List<BulkJob> jobs = new ArrayList<>(e - s);
            for (int i = s; i < e; i++) {
                jobs.add(BulkJob.of("bench", jobData(i), opts == null ? null : opts.apply(i)));
            }
            queue.addBulk(jobs);
        }
    }

    /** One discarded warm-up pass (JIT), then {@code runs} measured runs, each after a quiet-machine wait. */
    List<Run> repeat(String label, int runs, Callable<Run> fn, Callable<Run> warmup) throws Exception {
        if (warmup != null && cfg.warmupN > 0) {
            long t = System.nanoTime();
            warmup.call();
            Log.log(String.format("%s warmup (discarded, %.1f s)", label, (System.nanoTime() - t) / 1e9));
        }
        List<Run> out = new ArrayList<>();
        for (int r = 0; r < runs; r++) {
            Run quiet = cfg.quietWaitS > 0 ? waitQuiet() : new Run();
            long t = System.nanoTime();
            Run res = fn.call();
            res.putAll(quiet);
            out.add(res);
            Log.log(String.format("%s run %d/%d: %s jobs/s, jvm %s us/job, redis %s us/job, other_util %s (%.1f s)",
                    label, r + 1, runs, Emitter.fmt(res.get("jobs_per_s")), Emitter.fmt(res.get("node_cpu_us_per_job")),
                    Emitter.fmt(res.get("redis_cpu_us_per_job")), Emitter.fmt(res.get("other_util")),
                    (System.nanoTime() - t) / 1e9));
        }
        return out;
    }

    /** Waits (at most --quiet-wait-s) until the machine as a whole is below --quiet-max-util busy cores. */
    Run waitQuiet() {
        long t0 = System.nanoTime();
        double util;
        while (true) {
            double a = Cpu.systemBusySec();
            long ta = System.nanoTime();
            Sleep.ms(500);
            util = (Cpu.systemBusySec() - a) / ((System.nanoTime() - ta) / 1e9);
            if (!(util > cfg.quietMaxUtil) || (System.nanoTime() - t0) / 1e9 >= cfg.quietWaitS) {
                break;
            }
        }
        double waited = (System.nanoTime() - t0) / 1e9;
        if (waited > 1) {
            Log.log(String.format("waited %.1f s for a quiet machine (busy %.2f cores)", waited, util));
        }
        return new Run().put("quiet_wait_s", waited).put("busy_before_util", util);
    }

    @Override
    public void close() {
        try {
            admin.flush();
        } catch (RuntimeException e) {
            Log.log("final flush failed: " + e.getMessage());
        }
        admin.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
