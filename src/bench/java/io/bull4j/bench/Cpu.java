package io.bull4j.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU counters: this JVM's process CPU time (all threads, JIT and GC included) from the platform MXBean, and the
 * Linux {@code /proc} counters used to cross-check it, to read Redis's own CPU, and to see how busy the rest of
 * the machine is. {@code /proc} values are in clock ticks ({@code getconf CLK_TCK}, 10 ms here).
 */
final class Cpu {
    static final long PID = ProcessHandle.current().pid();
    static final double CLK_TCK = clockTicks();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private Cpu() {
    }

    /** This JVM's CPU seconds (user + system, every thread) as the JVM counts them, nanosecond resolution. */
    static double jvmCpuSec() {
        return OS.getProcessCpuTime() / 1e9;
    }

    /** utime + stime of a process from {@code /proc/<pid>/stat}, in seconds; NaN when unreadable. */
    static double procCpuSec(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.US_ASCII);
            // the command name may hold spaces: fields are counted from after its closing parenthesis
            String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / CLK_TCK;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Busy CPU seconds of the whole machine (user nice system irq softirq steal) from {@code /proc/stat}. */
    static double systemBusySec() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat")).get(0).trim();
            String[] f = first.split("\\s+");
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(f[i]);
            }
            return busy / CLK_TCK;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static int cpus() {
        return Runtime.getRuntime().availableProcessors();
    }

    static long totalMemoryBytes() {
        return OS.getTotalMemorySize();
    }

    private static double clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            p.waitFor();
            double v = Double.parseDouble(out);
            return v > 0 ? v : 100;
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    /** This process's CPU ticks (10 ms) by thread name (digits folded, so pools add up), from /proc/self/task. */
    static java.util.Map<String, Long> threadTicks() {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return out;
        }
        for (java.io.File t : tasks) {
            try {
                String name = java.nio.file.Files.readString(t.toPath().resolve("comm")).trim().replaceAll("\\d+", "N");
                String stat = java.nio.file.Files.readString(t.toPath().resolve("stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                out.merge(name, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
            } catch (java.io.IOException | RuntimeException e) {
                // the thread ended meanwhile
            }
        }
        return out;
    }
}
