package io.bull4j.examples;

import io.bull4j.Backoff;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

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
        Map<String, Integer> attemptsSeen = new ConcurrentHashMap<>();
        CountDownLatch allCompleted = new CountDownLatch(4);

        try (Queue queue = new Queue(queueName, QueueOptions.builder().connection(redis).build())) {
            print("add", queue.add("greet", Map.of("name", "Ana")), "");
            print("add", queue.add("greet", Map.of("name", "Bo")), "");
            print("add", queue.add("reminder", Map.of("text", "stand up"),
                    JobOptions.builder().delay(Duration.ofSeconds(1)).build()), "(delayed 1 s)");
            print("add", queue.add("flaky", Map.of("failTimes", 1),
                    JobOptions.builder().attempts(3).backoff(Backoff.fixed(Duration.ofMillis(300))).build()),
                    "(fails once, retried after 300 ms)");

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
            }, WorkerOptions.builder().connection(redis).concurrency(2).build());
            worker.addListener(new WorkerListener() {
                @Override
                public void onActive(Job job) {
                    print("active", job, "");
                }

                @Override
                public void onCompleted(Job job, Object result) {
                    print("completed", job, "-> " + result);
                    allCompleted.countDown();
                }

                @Override
                public void onFailed(Job job, Throwable error) {
                    print("failed", job, "-> " + error.getMessage());
                }
            });
            try {
                if (!allCompleted.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the demo jobs did not all complete within " + TIMEOUT);
                }
            } finally {
                worker.close();
            }
        }
    }

    private static void print(String what, Job job, String detail) {
        System.out.printf("%-10s job %s %-8s %s%n", what, job.id(), job.name(), detail);
    }
}
