package io.bull4j.examples.webhooks;

import io.bull4j.Backoff;
import io.bull4j.Bull4jConnection;
import io.bull4j.Deduplication;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.RateLimitException;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;
import io.bull4j.examples.ExampleRedis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Sends webhooks through a provider that allows {@code max} calls per {@code window}. Three features keep it
 * within the contract:
 * <ol>
 *   <li>the worker's limiter: at most {@code max} deliveries start per window, counted in Redis, so every instance
 *       of the service (and a Node service on the same queue) shares the one budget;</li>
 *   <li>when the provider still answers 429 with a Retry-After, the whole queue is held for that long
 *       ({@link Worker#rateLimit}) and the delivery goes back to wait with no attempt spent
 *       ({@link RateLimitException});</li>
 *   <li>deduplication by event id for a minute: an upstream that fires the same event twice sends one webhook.</li>
 * </ol>
 */
public final class RateLimitedWebhookSender implements AutoCloseable {
    public record Webhook(String eventId, String url, String body) {
    }

    /** The provider's answer: 2xx delivered, 429 too many (retry after the given time), other codes failed. */
    public record Response(int status, Duration retryAfter) {
    }

    @FunctionalInterface
    public interface Provider {
        Response post(String url, String body) throws Exception;
    }

    private final Queue queue;
    private final Worker worker;

    public RateLimitedWebhookSender(Bull4jConnection redis, String queueName, Provider provider, int max,
                                    Duration window, WorkerListener... listeners) {
        this.queue = new Queue(queueName, QueueOptions.builder().connection(redis).build());
        Worker[] self = new Worker[1];
        this.worker = new Worker(queueName, job -> {
            Webhook hook = job.data(Webhook.class);
            Response r = provider.post(hook.url(), hook.body());
            if (r.status() == 429) {
                self[0].rateLimit(r.retryAfter()); // every worker of the queue waits, not only this one
                throw new RateLimitException();
            }
            if (r.status() < 200 || r.status() >= 300) {
                throw new IllegalStateException("provider answered " + r.status()); // retried with backoff
            }
            return Map.of("status", r.status());
        }, WorkerOptions.builder().connection(redis).concurrency(8).limiter(max, window).autorun(false).build(),
                listeners);
        self[0] = worker;
        worker.run();
    }

    /** Queues a webhook; the same event id within a minute is sent once. Returns the job that will send it. */
    public Job send(Webhook hook) {
        return queue.add("webhook", hook, JobOptions.builder()
                .deduplication(Deduplication.builder(hook.eventId()).ttl(Duration.ofMinutes(1)).build())
                .attempts(5).backoff(Backoff.exponential(Duration.ofSeconds(1)))
                .removeOnComplete(true).build());
    }

    @Override
    public void close() {
        worker.close();
        queue.close();
    }

    /** A provider that allows 5 calls per second; sends 12 webhooks, one of them twice. */
    public static void main(String[] args) throws Exception {
        try (ExampleRedis server = ExampleRedis.start();
             Bull4jConnection redis = Bull4jConnection.create(server.uri())) {
            System.out.println("webhook example on " + server.describe());
            long t0 = System.currentTimeMillis();
            ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();
            Provider provider = (url, body) -> {
                log.add(String.format("%5d ms  POST %s %s", System.currentTimeMillis() - t0, url, body));
                return new Response(200, null);
            };
            CountDownLatch sent = new CountDownLatch(12);
            WorkerListener done = new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    sent.countDown();
                }
            };
            String queueName = "webhooks-" + Long.toHexString(System.nanoTime());
            try (RateLimitedWebhookSender sender = new RateLimitedWebhookSender(redis, queueName, provider, 5,
                    Duration.ofSeconds(1), done)) {
                for (int i = 1; i <= 12; i++) {
                    sender.send(new Webhook("evt-" + i, "https://example.com/hook", "{\"n\":" + i + "}"));
                }
                sender.send(new Webhook("evt-3", "https://example.com/hook", "{\"n\":3}")); // a duplicate: dropped
                if (!sent.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("webhooks not all sent");
                }
            }
            log.forEach(System.out::println);
            System.out.println("12 webhooks in " + (System.currentTimeMillis() - t0) + " ms, 5 per second");
        }
    }
}
