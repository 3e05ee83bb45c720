package io.bull4j.examples.orders;

import io.bull4j.Backoff;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
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

/**
 * Cancels an order that is not paid in time. Placing an order adds a delayed {@code auto-cancel} job due when the
 * payment window closes. Paying removes that job. If the job runs anyway, it cancels the order only if the order
 * is still unpaid; a paid order makes it a no-op. The check and the change are one compare-and-set on the order,
 * so a payment that races with the cancel job either wins or is refused: never both.
 *
 * <p>Why the no-op matters even though paying removes the job: the job may already be running when the payment
 * arrives (then it cannot be removed), the payment may be recorded by a service that does not know about the
 * queue, and at-least-once delivery may run the job twice. Its outcome must depend on the order's state alone.
 */
public final class UnpaidOrderAutoCancel implements AutoCloseable {
    public enum Status { PENDING, PAID, CANCELLED }

    /** The job's data. */
    public record CancelIfUnpaid(String orderId) {
    }

    /** The orders; in production a table whose updates are conditional ({@code WHERE status = 'PENDING'}). */
    public static final class Orders {
        private final Map<String, Status> status = new ConcurrentHashMap<>();

        void create(String orderId) {
            if (status.putIfAbsent(orderId, Status.PENDING) != null) {
                throw new IllegalArgumentException("order " + orderId + " exists");
            }
        }

        /** True if the order was pending and is now paid. */
        public boolean pay(String orderId) {
            return status.replace(orderId, Status.PENDING, Status.PAID);
        }

        /** True if the order was pending and is now cancelled. */
        boolean cancel(String orderId) {
            return status.replace(orderId, Status.PENDING, Status.CANCELLED);
        }

        public Status status(String orderId) {
            return status.get(orderId);
        }
    }

    private final Orders orders;
    private final Duration paymentWindow;
    private final Queue queue;
    private final Worker worker;

    /** Starts the worker on {@code queueName} at once. */
    public UnpaidOrderAutoCancel(Bull4jConnection redis, String queueName, Orders orders, Duration paymentWindow) {
        this.orders = orders;
        this.paymentWindow = paymentWindow;
        this.queue = new Queue(queueName, QueueOptions.builder().connection(redis).build());
        this.worker = new Worker(queueName, this::cancelIfUnpaid, WorkerOptions.builder().connection(redis).build());
    }

    /** Creates a pending order and schedules its cancellation at the end of the payment window. */
    public Job placeOrder(String orderId) {
        orders.create(orderId);
        return queue.add("auto-cancel", new CancelIfUnpaid(orderId), JobOptions.builder()
                .jobId(cancelJobId(orderId))         // one cancel job per order, however often this is called
                .delay(paymentWindow)
                .attempts(3)                          // the order store may be briefly unavailable
                .backoff(Backoff.exponential(Duration.ofSeconds(1)))
                .build());
    }

    /**
     * Pays the order and removes its cancel job, which is no longer needed; false if the order was already
     * cancelled (the customer must be refunded or told).
     */
    public boolean pay(String orderId) {
        if (!orders.pay(orderId)) {
            return false;
        }
        // best effort: false when a worker is running the job right now, which then finds the order paid
        queue.remove(cancelJobId(orderId));
        return true;
    }

    /** The id of an order's cancel job. */
    public static String cancelJobId(String orderId) {
        return "cancel-" + orderId;
    }

    public void addListener(WorkerListener listener) {
        worker.addListener(listener);
    }

    private Object cancelIfUnpaid(Job job) {
        String orderId = job.data(CancelIfUnpaid.class).orderId();
        if (orders.cancel(orderId)) {
            return "cancelled";
        }
        return "kept:" + orders.status(orderId); // paid in time, or cancelled by an earlier run of this job
    }

    @Override
    public void close() {
        worker.close();
        queue.close();
    }

    public static void main(String[] args) throws Exception {
        try (ExampleRedis server = ExampleRedis.start();
             Bull4jConnection redis = Bull4jConnection.create(server.uri())) {
            System.out.println("auto-cancel example on " + server.describe());
            String queueName = "orders-" + Long.toHexString(System.nanoTime());
            Orders orders = new Orders();
            CountDownLatch bothDue = new CountDownLatch(2);
            try (UnpaidOrderAutoCancel shop = new UnpaidOrderAutoCancel(redis, queueName, orders,
                    Duration.ofSeconds(1))) {
                shop.addListener(new WorkerListener() {
                    @Override
                    public void onCompleted(Job job, Object result) {
                        System.out.println(job.id() + " ran after the payment window -> " + result);
                        bothDue.countDown();
                    }
                });
                shop.placeOrder("A-1001");
                shop.placeOrder("B-1002");
                shop.placeOrder("C-1003");
                System.out.println("placed A-1001, B-1002 and C-1003");
                System.out.println("A-1001 paid through the shop (its cancel job is removed): " + shop.pay("A-1001"));
                System.out.println("B-1002 paid by another service (its cancel job stays): " + orders.pay("B-1002"));
                if (!bothDue.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the cancel jobs did not run");
                }
                for (String id : new String[] {"A-1001", "B-1002", "C-1003"}) {
                    System.out.println(id + " is " + orders.status(id));
                }
                System.out.println("paying C-1003 now: " + shop.pay("C-1003"));
            } finally {
                try (Queue queue = new Queue(queueName, QueueOptions.builder().connection(redis).build())) {
                    queue.obliterate(true);
                }
            }
        }
    }
}
