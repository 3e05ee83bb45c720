package io.bull4j.bench;

/**
 * Tells a stall of the machine or of Redis from one of the worker's own logic: a thread of its own wakes every
 * {@value #TICK_MS} ms and sends an ECHO on the harness's connection (left out of the per-job counts). Over a
 * window it keeps the latest wake-up (the JVM or the machine stood still) and the slowest ECHO (Redis, or the way
 * to it, stood still), with when each happened. A run late by seconds while both stay small was the worker's doing.
 */
final class StallWatch implements AutoCloseable {
    static final long TICK_MS = 10;
    private static final String TEXT = "bull4j-bench-stall-watch";

    private final RedisAdmin admin;
    private final Thread thread;
    private volatile boolean running = true;
    private long windowStartNs = Long.MAX_VALUE; // guarded by this
    private long windowEndNs = Long.MAX_VALUE;
    private double maxLateMs;
    private double maxLateAtS;
    private double maxEchoMs;
    private double maxEchoAtS;
    /** Ticks with a late wake-up or a slow ECHO (over {@value #NOTABLE_MS} ms): "wall_ms late_ms echo_ms". */
    private final StringBuilder notable = new StringBuilder();
    private static final double NOTABLE_MS = 2;

    StallWatch(RedisAdmin admin) {
        this.admin = admin;
        this.thread = new Thread(this::loop, "bench-stall-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts the window: what was seen before is forgotten. */
    synchronized void begin() {
        windowStartNs = System.nanoTime();
        windowEndNs = Long.MAX_VALUE;
        notable.setLength(0);
        maxLateMs = maxEchoMs = maxLateAtS = maxEchoAtS = 0;
    }

    /** Ends the window: what comes after is not kept. */
    synchronized void end() {
        windowEndNs = System.nanoTime();
    }

    /** The window's worst wake-up and ECHO, in ms, and when they came in seconds from its start. */
    synchronized void report(Run r) {
        r.put("stall_tick_late_max_ms", round(maxLateMs)).put("stall_tick_late_max_at_s", round(maxLateAtS));
        r.put("stall_echo_max_ms", round(maxEchoMs)).put("stall_echo_max_at_s", round(maxEchoAtS));
    }

    /** The window's notable ticks, a line each: "wall_ms late_ms echo_ms" (see --latency-dump). */
    synchronized String notable() {
        return notable.toString();
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private void loop() {
        while (running) {
            long t0 = System.nanoTime();
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long t1 = System.nanoTime();
            try {
                admin.echo(TEXT);
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
            }
            long t2 = System.nanoTime();
            record(t0, (t1 - t0) / 1e6 - TICK_MS, t1, (t2 - t1) / 1e6);
        }
    }

    private synchronized void record(long t0, double lateMs, long t1, double echoMs) {
        if (t0 < windowStartNs || t0 >= windowEndNs) {
            return;
        }
        if (lateMs > NOTABLE_MS || echoMs > NOTABLE_MS) {
            notable.append(System.currentTimeMillis()).append(' ').append(round(lateMs)).append(' ')
                    .append(round(echoMs)).append('\n');
        }
        if (lateMs > maxLateMs) {
            maxLateMs = lateMs;
            maxLateAtS = (t0 - windowStartNs) / 1e9;
        }
        if (echoMs > maxEchoMs) {
            maxEchoMs = echoMs;
            maxEchoAtS = (t1 - windowStartNs) / 1e9;
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
