package io.bull4j.interop;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;
import io.bull4j.support.RedisTestServer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A queue that bull4j alone has put a job in every state: completed (with return value, progress and logs),
 * failed (after two attempts), active (its processor blocked on a latch), waiting, prioritized and delayed;
 * plus a second, paused queue holding one waiting job. The worker runs one job at a time, so while the active
 * job is held nothing else is taken.
 */
final class BoardFixture implements AutoCloseable {
    static final String WORKER_NAME = "board-worker";
    static final Duration DELAY = Duration.ofHours(1);
    private static final Duration WAIT = Duration.ofSeconds(20);

    final Bull4jConnection connection = Bull4jConnection.create(RedisTestServer.get().bull4jUri());
    final QueueOptions options = QueueOptions.builder().connection(connection).build();
    final String name = RedisTestServer.uniqueQueueName("board");
    final String pausedName = RedisTestServer.uniqueQueueName("board-paused");
    final Queue queue = new Queue(name, options);
    final Queue pausedQueue = new Queue(pausedName, options);
    private final CountDownLatch release = new CountDownLatch(1);
    private Worker worker;

    String completedId;
    String failedId;
    String activeId;
    List<String> waitingIds;
    String prioritizedId;
    String delayedId;
    String parkedId;

    /** Builds every state; returns when they are all in place. */
    BoardFixture fill() throws Exception {
        CompletableFuture<Job> completed = new CompletableFuture<>();
        CompletableFuture<Job> failed = new CompletableFuture<>();
        CompletableFuture<String> held = new CompletableFuture<>();
        completedId = queue.add("send", Map.of("to", "ana@example.com", "tries", 1),
                JobOptions.builder().keepLogs(10).build()).id();
        failedId = queue.add("boom", Map.of("to", "bad@example.com"),
                JobOptions.builder().attempts(2).build()).id();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                if (job.id().equals(completedId)) {
                    completed.complete(job);
                }
            }

            @Override
            public void onFailed(Job job, Throwable error) {
                if (job.id().equals(failedId) && job.finishedOn() != null) { // the last attempt, not a retry
                    failed.complete(job);
                }
            }
        };
        worker = new Worker(name, job -> process(job, held), WorkerOptions.builder().connection(connection)
                .name(WORKER_NAME).concurrency(1).drainDelay(Duration.ofSeconds(1)).build(), listener);
        completed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        failed.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        activeId = queue.add("hold", Map.of("step", 3)).id();
        held.get(WAIT.toSeconds(), TimeUnit.SECONDS); // the only slot is now busy: the rest stays put
        waitingIds = List.of(queue.add("wait-a", Map.of("n", 1)).id(), queue.add("wait-b", Map.of("n", 2)).id());
        prioritizedId = queue.add("urgent", Map.of("level", "high"), JobOptions.builder().priority(5).build()).id();
        delayedId = queue.add("later", List.of("x", 2, true), JobOptions.builder().delay(DELAY).build()).id();

        parkedId = pausedQueue.add("parked", Map.of()).id();
        pausedQueue.pause();
        return this;
    }

    private Object process(Job job, CompletableFuture<String> held) throws Exception {
        switch (job.name()) {
            case "send" -> {
                job.updateProgress(Map.of("step", "sent", "pct", 100));
                job.log("rendered template");
                job.log("handed to smtp");
                return Map.of("sent", true, "messageId", "m-1");
            }
            case "boom" -> throw new IllegalStateException("smtp refused on attempt " + (job.attemptsMade() + 1));
            case "hold" -> {
                held.complete(job.id());
                if (!release.await(WAIT.toSeconds() * 3, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
                return "released";
            }
            default -> {
                return null;
            }
        }
    }

    /** Frees the held job, stops the worker and deletes both queues. */
    @Override
    public void close() {
        release.countDown();
        try {
            if (worker != null) {
                worker.close();
            }
            queue.obliterate(true);
            pausedQueue.obliterate(true);
        } finally {
            queue.close();
            pausedQueue.close();
            connection.close();
        }
    }
}
