package io.bull4j.examples.notifications;

import io.bull4j.Backoff;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;
import io.bull4j.examples.ExampleRedis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends notifications through an unreliable gateway: failed sends are retried with exponential backoff, and
 * the handler is idempotent, because bull4j delivers a job at least once (a worker that dies after sending but
 * before recording the outcome leaves the job to be run again).
 *
 * <p>Three layers keep a notification from going out twice:
 * <ol>
 *   <li>the job id is the notification id, so adding the same notification again returns the existing job;</li>
 *   <li>the handler checks a {@link DeliveryLog} keyed by job id before sending, and records the delivery after,
 *       fenced by the job's lock token so that only the attempt that holds the job can record it;</li>
 *   <li>the gateway gets the job id as an idempotency key, for the rare case of two overlapping attempts
 *       (a stalled worker that wakes up after its job was handed to another).</li>
 * </ol>
 */
public final class NotificationService implements AutoCloseable {
    public record Notification(String userId, String text) {
    }

    /** The outside world: an SMS, e-mail or push provider. Throwing fails the attempt, which is retried. */
    @FunctionalInterface
    public interface Gateway {
        void deliver(String idempotencyKey, Notification notification) throws Exception;
    }

    /**
     * Which notifications went out. In production, a table keyed by notification id whose writes are conditional
     * on the token; here, maps. Thread-safe.
     */
    public static final class DeliveryLog {
        private final Map<String, String> claims = new ConcurrentHashMap<>();     // id -> token of latest attempt
        private final Map<String, String> delivered = new ConcurrentHashMap<>();  // id -> token that recorded it

        public boolean isDelivered(String id) {
            return delivered.containsKey(id);
        }

        /** An attempt announces itself; a later attempt's claim fences out an earlier one. */
        void claim(String id, String token) {
            claims.put(id, token);
        }

        /** Records the delivery if this attempt still holds the claim and nobody recorded it yet. */
        synchronized boolean record(String id, String token) {
            if (!token.equals(claims.get(id)) || delivered.containsKey(id)) {
                return false;
            }
            delivered.put(id, token);
            return true;
        }

        /** Marks a notification delivered by an earlier run (e.g. one that crashed before completing its job). */
        public void markDelivered(String id) {
            delivered.put(id, "earlier-run");
        }

        public int deliveredCount() {
            return delivered.size();
        }
    }

    private final Queue queue;
    private final Worker worker;
    private final Gateway gateway;
    private final DeliveryLog log;
    private final JobOptions jobOptions;

    /** Starts processing {@code queueName} at once; failed sends wait {@code backoff}, 2×, 4×… between tries. */
    public NotificationService(Bull4jConnection redis, String queueName, Gateway gateway, DeliveryLog log,
                               Duration backoff) {
        this.gateway = gateway;
        this.log = log;
        this.jobOptions = JobOptions.builder()
                .attempts(5)
                .backoff(Backoff.exponential(backoff))
                // why keep completed jobs a day: a re-add of the same id within that day is deduplicated
                // by the queue itself; the delivery log covers the rest
                .removeOnComplete(KeepJobs.age(Duration.ofDays(1)))
                .removeOnFail(KeepJobs.age(Duration.ofDays(7)))
                .build();
        this.queue = new Queue(queueName, QueueOptions.builder().connection(redis).build());
        this.worker = new Worker(queueName, this::handle,
                WorkerOptions.builder().connection(redis).concurrency(4).build());
    }

    /** Queues a notification once; {@code notificationId} must not be an integer nor contain ':'. */
    public Job send(String notificationId, Notification notification) {
        return queue.add("notify", notification, jobOptions.toBuilder().jobId("ntf-" + notificationId).build());
    }

    /** Listens to the worker, e.g. to see each attempt fail or complete. */
    public void addListener(WorkerListener listener) {
        worker.addListener(listener);
    }

    private Object handle(Job job) throws Exception {
        String id = job.id();
        if (log.isDelivered(id)) {
            return "duplicate-skipped"; // a redelivery of a notification that already went out
        }
        log.claim(id, job.token());
        gateway.deliver(id, job.data(Notification.class)); // an exception here means: retry with backoff
        return log.record(id, job.token()) ? "delivered" : "superseded";
    }

    @Override
    public void close() {
        worker.close();
        queue.close();
    }

    public static void main(String[] args) throws Exception {
        try (ExampleRedis server = ExampleRedis.start();
             Bull4jConnection redis = Bull4jConnection.create(server.uri())) {
            System.out.println("notifications example on " + server.describe());
            String queueName = "notifications-" + Long.toHexString(System.nanoTime());
            AtomicInteger calls = new AtomicInteger();
            Gateway flaky = (key, n) -> {
                if (calls.incrementAndGet() <= 2) {
                    throw new IllegalStateException("gateway timeout (call " + calls.get() + ")");
                }
                System.out.println("SENT to " + n.userId() + ": " + n.text() + " [key " + key + "]");
            };
            CountDownLatch done = new CountDownLatch(1);
            try (NotificationService service = new NotificationService(redis, queueName, flaky, new DeliveryLog(),
                    Duration.ofMillis(200))) {
                service.addListener(new WorkerListener() {
                    @Override
                    public void onFailed(Job job, Throwable error) {
                        System.out.println("attempt failed: " + error.getMessage() + "; retrying with backoff");
                    }

                    @Override
                    public void onCompleted(Job job, Object result) {
                        System.out.println(job.id() + " -> " + result);
                        done.countDown();
                    }
                });
                Job first = service.send("order-shipped-42", new Notification("ana", "Your order has shipped"));
                Job again = service.send("order-shipped-42", new Notification("ana", "Your order has shipped"));
                System.out.println("added " + first.id() + ", added again: same job " + again.id());
                if (!done.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the notification did not complete");
                }
            } finally {
                try (Queue queue = new Queue(queueName, QueueOptions.builder().connection(redis).build())) {
                    queue.obliterate(true);
                }
            }
        }
    }
}
