package io.bull4j.examples.orders;

import io.bull4j.Bull4jConnection;
import io.bull4j.FlowJob;
import io.bull4j.FlowProducer;
import io.bull4j.Job;
import io.bull4j.JobNode;
import io.bull4j.JobOptions;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An order flow: completing an order takes three steps in three services (charge the card, reserve the stock, send
 * the confirmation), each a job in its own queue. The {@code complete-order} parent job waits in
 * {@code waiting-children} until all three are done, then runs once and reads their results. A failed charge fails
 * the order (failParentOnFailure); a confirmation that cannot be sent does not hold it back
 * (ignoreDependencyOnFailure). Each job's id derives from the order id, so placing the same order twice adds
 * nothing new.
 */
public final class OrderFlow implements AutoCloseable {
    /** The queues: the orders (parents) and the three services. */
    public record Queues(String orders, String payments, String stock, String notifications) {
    }

    /** An order to complete. */
    public record Order(String id, long cents, String sku, String email) {
    }

    /** What the three services do; in production, calls to the payment provider, the stock database, a mailer. */
    public interface Services {
        /** Charges the order; returns the payment's reference. */
        String charge(String orderId, long cents);

        /** Reserves one unit; returns the reservation's id. */
        String reserve(String orderId, String sku);

        /** Sends the confirmation e-mail. */
        void confirm(String orderId, String email);
    }

    private final FlowProducer flows;
    private final Queues queues;
    private final List<Worker> workers;

    /** Starts one worker per queue at once. */
    public OrderFlow(Bull4jConnection redis, Queues queues, Services services) {
        this.queues = queues;
        this.flows = new FlowProducer(QueueOptions.builder().connection(redis).build());
        WorkerOptions options = WorkerOptions.builder().connection(redis).build();
        this.workers = List.of(
                new Worker(queues.payments(), job -> services.charge(orderId(job), cents(job)), options),
                new Worker(queues.stock(), job -> services.reserve(orderId(job), (String) field(job, "sku")), options),
                new Worker(queues.notifications(), job -> {
                    services.confirm(orderId(job), (String) field(job, "email"));
                    return "sent";
                }, options),
                new Worker(queues.orders(), this::completeOrder, options));
    }

    /** Adds the order's flow: the parent and its three children, in one atomic call. */
    public JobNode placeOrder(Order order) {
        Map<String, Object> data = Map.of("orderId", order.id(), "cents", order.cents(), "sku", order.sku(),
                "email", order.email());
        return flows.add(FlowJob.builder("complete-order", queues.orders()).data(Map.of("orderId", order.id()))
                .options(JobOptions.builder().jobId("order-" + order.id()).build())
                .child(FlowJob.builder("charge", queues.payments()).data(data).options(JobOptions.builder()
                        .jobId("charge-" + order.id()).attempts(3).failParentOnFailure(true).build()).build())
                .child(FlowJob.builder("reserve", queues.stock()).data(data).options(JobOptions.builder()
                        .jobId("reserve-" + order.id()).attempts(3).failParentOnFailure(true).build()).build())
                .child(FlowJob.builder("confirm", queues.notifications()).data(data).options(JobOptions.builder()
                        .jobId("confirm-" + order.id()).attempts(2).ignoreDependencyOnFailure(true).build()).build())
                .build());
    }

    /** Listens to the orders' worker (completed and failed orders). */
    public void addListener(WorkerListener listener) {
        workers.get(3).addListener(listener);
    }

    /** The parent: runs once its children are done, with their results by child key. */
    private Object completeOrder(Job job) {
        Map<String, Object> results = new TreeMap<>();
        job.getChildrenValues().forEach((childKey, value) -> results.put(childKey.substring(childKey.lastIndexOf(':')
                + 1), value));
        results.put("unsentConfirmations", job.getIgnoredChildrenFailures().size());
        return results;
    }

    private static Object field(Job job, String name) {
        return ((Map<?, ?>) job.data()).get(name);
    }

    private static String orderId(Job job) {
        return (String) field(job, "orderId");
    }

    private static long cents(Job job) {
        return ((Number) field(job, "cents")).longValue();
    }

    /** Closes the workers (waiting for running jobs), then the producer. */
    @Override
    public void close() {
        workers.forEach(Worker::close);
        flows.close();
    }
}
