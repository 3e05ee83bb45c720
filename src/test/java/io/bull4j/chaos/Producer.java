package io.bull4j.chaos;

import io.bull4j.Bull4jConnection;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;

import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Adds jobs {@code j1, j2, ...} at a steady rate on its own thread, each working a random 50 ms - 2 s, and writes
 * ADD_INVOKE before each add and ADD_OK or ADD_FAIL after it to its history. Ids are chosen here, so that a failed
 * add that Redis applied anyway is still recognised. It stops after {@code total} adds or on {@link #stop()}.
 */
final class Producer implements AutoCloseable {
    static final long MIN_WORK_MS = 50;
    static final long MAX_WORK_MS = 2_000;

    private final Bull4jConnection connection;
    private final Queue queue;
    private final History history;
    private final int total;
    private final long periodNanos;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread thread;
    private final SplittableRandom random;
    private volatile int invoked;

    Producer(String redisUri, String queueName, History history, int total, int perSecond, long seed) {
        this.connection = ChaosWorkerMain.connect(redisUri, Duration.ofSeconds(5));
        this.queue = new Queue(queueName, QueueOptions.builder().connection(connection).build());
        this.history = history;
        this.total = total;
        this.periodNanos = 1_000_000_000L / perSecond;
        this.random = new SplittableRandom(seed);
        this.thread = new Thread(this::run, "chaos-producer");
    }

    void start() {
        thread.start();
    }

    /** Ends the adds early (the run's time is up); an add in progress finishes first. */
    void stop() {
        stopping.set(true);
    }

    boolean awaitFinished(Duration timeout) throws InterruptedException {
        return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    int invoked() {
        return invoked;
    }

    private void run() {
        long next = System.nanoTime();
        try {
            for (int n = 1; n <= total && !stopping.get(); n++) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                next += periodNanos;
                String id = "j" + n;
                long ms = random.nextLong(MIN_WORK_MS, MAX_WORK_MS + 1);
                history.append("ADD_INVOKE", "job", id, "ms", ms);
                invoked = n;
                try {
                    queue.add("chaos", Map.of("ms", ms), JobOptions.builder().jobId(id).build());
                    history.append("ADD_OK", "job", id);
                } catch (RuntimeException e) {
                    // the outcome is unknown to the caller: the checker watches whether it appears anyway
                    history.append("ADD_FAIL", "job", id, "error", e.getClass().getSimpleName(),
                            "msg", String.valueOf(e.getMessage()));
                }
            }
        } finally {
            finished.countDown();
        }
    }

    @Override
    public void close() {
        stop();
        try {
            thread.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        queue.close();
        connection.close();
    }
}
