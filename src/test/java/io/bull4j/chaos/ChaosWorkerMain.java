package io.bull4j.chaos;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobException;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A bull4j worker as a child JVM of the chaos suite. Each job's data says how long it works ({@code ms}); the
 * processor records START before and END after that work, and the listeners record outcomes and lost locks,
 * all in this process's history (see {@link History}; chaos-worker.mjs writes the same lines for BullMQ).
 * SIGTERM closes the worker gracefully (running jobs finish) before the JVM exits. With {@code spin} as the last
 * argument the processor busy-spins for the job's duration (CPU-bound work) instead of sleeping. A ticker thread
 * writes BLOCKED when it ran more than a second late (the process got no CPU: a pause, a starved or frozen JVM),
 * as chaos-worker.mjs does for its event loop.
 * Args: redisUri queue concurrency lockMs stalledMs maxStalledCount historyFile processName [sleep|spin]
 */
public final class ChaosWorkerMain {
    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String queue = args[1];
        WorkerOptions.Builder opts = WorkerOptions.builder()
                .concurrency(Integer.parseInt(args[2]))
                .lockDuration(Duration.ofMillis(Long.parseLong(args[3])))
                .stalledInterval(Duration.ofMillis(Long.parseLong(args[4])))
                .maxStalledCount(Integer.parseInt(args[5]));
        History history = new History(Path.of(args[6]));
        String proc = args[7];
        boolean spin = args.length > 8 && args[8].equals("spin");
        history.append("BOOT", "proc", proc, "pid", ProcessHandle.current().pid(), "engine", "bull4j",
                "work", spin ? "spin" : "sleep");
        startTicker(history);

        Bull4jConnection redis = connect(uri, Bull4jConnection.DEFAULT_COMMAND_TIMEOUT);
        Worker worker = new Worker(queue, job -> work(job, history, spin), opts.connection(redis).build(),
                new Recorder(history));
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            history.append("CLOSING");
            worker.close();
            redis.close();
            history.append("CLOSED");
            closed.countDown();
        }, "chaos-worker-close"));
        history.append("READY");
        closed.await();
    }

    /**
     * One Redis URI (a Sentinel URI may list several Sentinels), or a comma-separated list of cluster nodes (the
     * seeds of a cluster connection).
     */
    static Bull4jConnection connect(String uri, Duration commandTimeout) {
        return uri.contains(",") && !uri.startsWith("redis-sentinel://")
                ? Bull4jConnection.createCluster(List.of(uri.split(",")), commandTimeout)
                : Bull4jConnection.create(uri, commandTimeout);
    }

    /** Writes BLOCKED (with the gap in ms) when a 100 ms tick comes more than a second late. */
    private static void startTicker(History history) {
        Thread ticker = new Thread(() -> {
            long last = System.nanoTime();
            while (true) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
                long now = System.nanoTime();
                if (now - last > 1_000_000_000L) {
                    history.append("BLOCKED", "ms", (now - last) / 1e6);
                }
                last = now;
            }
        }, "chaos-ticker");
        ticker.setDaemon(true);
        ticker.start();
    }

    private static Object work(Job job, History history, boolean spin) throws InterruptedException {
        history.append("START", "job", job.id(), "token", job.token(), "ats", job.attemptsStarted(),
                "atm", job.attemptsMade());
        @SuppressWarnings("unchecked")
        Number ms = (Number) ((Map<String, Object>) job.data()).get("ms");
        // the job's work: long enough that kills and pauses land while jobs run
        if (spin) {
            // CPU-bound work: this processor thread computes until the time is up
            long until = System.nanoTime() + ms.longValue() * 1_000_000L;
            while (System.nanoTime() - until < 0) {
                // spin, reading the clock as chaos-worker.mjs does
            }
        } else {
            Thread.sleep(ms.longValue());
        }
        history.append("END", "job", job.id(), "token", job.token());
        return Map.of("ok", true);
    }

    /** Outcomes as the worker reports them. */
    private record Recorder(History history) implements WorkerListener {
        @Override
        public void onCompleted(Job job, Object result) {
            history.append("DONE", "job", job.id(), "token", job.token());
        }

        @Override
        public void onFailed(Job job, Throwable error) {
            history.append("FAILED", "job", job.id(), "token", job.token(),
                    "reason", String.valueOf(error.getMessage()));
        }

        @Override
        public void onStalled(String jobId) {
            history.append("STALLED", "job", jobId);
        }

        @Override
        public void onError(Throwable error) {
            if (error instanceof JobException je && je.jobId() != null) {
                // a renewal that found the lock gone, or a finish that Redis refused (the token check)
                history.append("LOCK_LOST", "job", je.jobId(), "reason", je.reason().name(),
                        "msg", String.valueOf(je.getMessage()));
            } else {
                history.append("ERROR", "msg", String.valueOf(error));
            }
        }
    }
}
