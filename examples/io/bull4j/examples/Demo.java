package io.bull4j.examples;

import io.bull4j.Backoff;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.UnrecoverableException;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The README's demo ({@code mvn -q test-compile exec:java}): adds a few jobs, one delayed and one that fails
 * once and is retried, runs a {@link Worker}, prints what happens and exits when every job has completed.
 * Uses {@code REDIS_URL} or localhost:6379 when a Redis answers there, else an embedded redis-server
 * (see {@link ExampleRedis}). The queue name is unique per run, and the queue is obliterated at the end.
 */
public final class Demo {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        try (ExampleRedis redisServer = ExampleRedis.start();
             Bull4jConnection redis = Bull4jConnection.create(redisServer.uri())) {
            System.out.println("bull4j demo: using " + redisServer.describe() + ", Redis "
                    + redis.serverVersion());
            String queueName = "bull4j-demo-" + UUID.randomUUID().toString().substring(0, 8);
            try {
                run(redis, queueName);
            } finally {
                // why: the demo may run on a Redis shared with other work; leave nothing behind
                try (Queue queue = new Queue(queueName, QueueOptions.builder().connection(redis).build())) {
                    queue.obliterate(true);
                }
            }
        }
        System.out.printf("done in %.1f s%n", (System.nanoTime() - start) / 1e9);
    }

    /** Adds the demo jobs to {@code queueName}, processes them, and returns when all have completed. */
    public static void run(Bull4jConnection redis, String queueName) throws InterruptedException {
        run(redis, queueName, System.out);
    }

    /** As {@link #run(Bull4jConnection, String)}, printing to {@code out}. */
    public static void run(Bull4jConnection redis, String queueName, PrintStream out) throws InterruptedException {
        Map<String, Integer> attemptsSeen = new ConcurrentHashMap<>();
        CountDownLatch allCompleted = new CountDownLatch(4);

        try (Queue queue = new Queue(queueName, QueueOptions.builder().connection(redis).build())) {
            print(out, "add", queue.add("greet", Map.of("name", "Ana")), "");
            print(out, "add", queue.add("greet", Map.of("name", "Bo")), "");
            print(out, "add", queue.add("reminder", Map.of("text", "stand up"),
                    JobOptions.builder().delay(Duration.ofSeconds(1)).build()), "(delayed 1 s)");
            print(out, "add", queue.add("flaky", Map.of("failTimes", 1),
                    JobOptions.builder().attempts(3).backoff(Backoff.fixed(Duration.ofMillis(300))).build()),
                    "(fails once, retried after 300 ms)");

            // passed to the constructor: the worker starts at once, and the jobs above are already waiting, so a
            // listener added after it could miss the first of them
            WorkerListener printer = new WorkerListener() {
                @Override
                public void onActive(Job job) {
                    print(out, "active", job, "");
                }

                @Override
                public void onCompleted(Job job, Object result) {
                    print(out, "completed", job, "-> " + result);
                    allCompleted.countDown();
                }

                @Override
                public void onFailed(Job job, Throwable error) {
                    if (willRetry(job, error)) {
                        print(out, "retry", job, "attempt " + job.attemptsMade() + " failed (" + error.getMessage()
                                + "), will retry " + retryWait(job));
                    } else {
                        print(out, "failed", job, "-> " + error.getMessage());
                    }
                }
            };
            Worker worker = new Worker(queueName, job -> {
                int attempt = attemptsSeen.merge(job.id(), 1, Integer::sum);
                switch (job.name()) {
                    case "greet":
                        return "Hello, " + job.data(Map.class).get("name") + "!";
                    case "reminder":
                        return "Reminder: " + job.data(Map.class).get("text");
                    case "flaky":
                        if (attempt == 1) {
                            throw new IllegalStateException("simulated outage on attempt " + attempt);
                        }
                        return "worked on attempt " + attempt;
                    default:
                        throw new IllegalArgumentException("unknown job " + job.name());
                }
            }, WorkerOptions.builder().connection(redis).concurrency(2).build(), printer);
            try {
                if (!allCompleted.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the demo jobs did not all complete within " + TIMEOUT);
                }
            } finally {
                worker.close();
            }
        }
    }

    private static void print(PrintStream out, String what, Job job, String detail) {
        out.printf("%-10s job %s %-8s %s%n", what, job.id(), job.name(), detail);
    }

    /**
     * A failed attempt of a job that has attempts left is retried: the same rule as the worker's (an
     * {@link UnrecoverableException} is never retried).
     */
    private static boolean willRetry(Job job, Throwable error) {
        return !(error instanceof UnrecoverableException) && job.attemptsMade() < job.opts().attempts();
    }

    /** When the retry runs: after the job's backoff, at once without one. */
    private static String retryWait(Job job) {
        Backoff b = job.opts().backoff();
        if (b == null) {
            return "at once";
        }
        return b.isBuiltIn() && b.jitter() == 0
                ? "in " + b.delayFor(job.attemptsMade(), 0).toMillis() + " ms"
                : "after its " + b.type() + " backoff";
    }
}
