package io.bull4j.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A measured window, as the Node side's beginMeasure/endMeasure: CONFIG RESETSTAT and CPU counters at the start;
 * at the end the CPU deltas (JVM, Redis, rest of the machine) and the INFO commandstats of the window. JVM CPU is
 * reported under the Node side's {@code node_*} keys so that the summary puts both in the same columns.
 */
final class Measure {
    /** Commands whose usec already includes that of the commands they ran (EXEC), left out of the top-level sum. */
    private static final Set<String> CONTAINER_CMDS = Set.of("exec", "multi");

    record Snapshot(long tNanos, double jvmCpu, double jvmProc, double redisCpu, double redisProc, double sysBusy) {
    }

    private final RedisAdmin admin;
    /** Set while a cost-mode calibration pass runs: the window is then bracketed by MONITOR sentinels. */
    volatile Monitor monitor;
    /** With --jfr: records each window. */
    Profiler profiler;

    Measure(RedisAdmin admin) {
        this.admin = admin;
    }

    Snapshot snapshot() {
        double redisCpu = admin.redisCpuSec();
        return new Snapshot(System.nanoTime(), Cpu.jvmCpuSec(), Cpu.procCpuSec(Cpu.PID), redisCpu,
                admin.redisLocal ? Cpu.procCpuSec(admin.redisPid) : Double.NaN, Cpu.systemBusySec());
    }

    Snapshot begin() {
        admin.resetStats();
        if (monitor != null) {
            admin.echo(Monitor.BEGIN);
        }
        if (profiler != null) {
            profiler.start();
        }
        return snapshot();
    }

    /** Ends the window at {@code tEndNanos} (0: now) and returns the CPU and command metrics for {@code jobs}. */
    Run end(Snapshot before, long jobs, long tEndNanos) {
        Snapshot after = snapshot();
        if (profiler != null) {
            profiler.stop();
        }
        if (monitor != null) {
            admin.echo(Monitor.END);
        }
        Map<String, long[]> cs = admin.commandStats();
        double wall = ((tEndNanos != 0 ? tEndNanos : after.tNanos()) - before.tNanos()) / 1e9;
        double jvmCpu = after.jvmCpu() - before.jvmCpu();
        double redisCpu = after.redisCpu() - before.redisCpu();
        long callsAll = 0;
        long usecAll = 0;
        long scriptCalls = 0;
        long scriptUsec = 0;
        Map<String, long[]> cmd = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : cs.entrySet()) {
            if (RedisAdmin.HARNESS_CMDS.contains(e.getKey())) {
                continue;
            }
            long[] v = e.getValue();
            callsAll += v[0];
            usecAll += v[1];
            if (RedisAdmin.SCRIPT_CMDS.contains(e.getKey())) {
                scriptCalls += v[0];
                scriptUsec += v[1];
            }
            cmd.put(e.getKey(), v);
        }
        Run r = new Run();
        r.put("wall_s", wall);
        r.put("node_cpu_s", jvmCpu);
        r.put("node_cpu_proc_s", Cpu.procCpuSec(Cpu.PID) - before.jvmProc());
        r.put("redis_cpu_s", redisCpu);
        r.put("redis_cpu_proc_s", admin.redisLocal ? Cpu.procCpuSec(admin.redisPid) - before.redisProc() : Double.NaN);
        r.put("node_util", jvmCpu / wall);
        r.put("redis_util", redisCpu / wall);
        r.put("other_util", Math.max(0, after.sysBusy() - before.sysBusy() - jvmCpu - redisCpu) / wall);
        r.put("node_cpu_us_per_job", jvmCpu * 1e6 / jobs);
        r.put("redis_cpu_us_per_job", redisCpu * 1e6 / jobs);
        r.put("cmd_calls_per_job", (double) callsAll / jobs);
        r.put("script_calls_per_job", (double) scriptCalls / jobs);
        r.put("script_usec_per_job", (double) scriptUsec / jobs);
        r.put("naive_usec_per_job", (double) usecAll / jobs);
        r.cmdstats = cmd;
        return r;
    }

    /**
     * Adds the double-count-free numbers of the cost mode: each command's usec counts only in the share of its
     * calls that clients sent (the rest ran inside scripts, whose usec already holds them).
     */
    static void applyCalibration(Run run, Calibration calib, long jobs) {
        double top = 0;
        for (Map.Entry<String, long[]> e : run.cmdstats.entrySet()) {
            if (CONTAINER_CMDS.contains(e.getKey())) {
                continue;
            }
            long c = calib.client().getOrDefault(e.getKey(), 0L);
            long l = calib.lua().getOrDefault(e.getKey(), 0L);
            double directFrac = c + l == 0 ? 1 : (double) c / (c + l);
            top += e.getValue()[1] * directFrac;
        }
        run.put("toplevel_usec_per_job", top / jobs);
        run.put("client_cmds_per_job", calib.clientPerJob());
        run.put("lua_cmds_per_job", calib.luaPerJob());
    }
}
