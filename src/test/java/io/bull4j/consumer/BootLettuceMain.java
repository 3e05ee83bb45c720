package io.bull4j.consumer;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.RedisException;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A worker through a failover's READONLY replies, as BootLettuceTest runs it in a child JVM on another Lettuce
 * than bull4j's own (the one Spring Boot's dependency management gives a Boot application). The Redis it is given
 * becomes a replica (of a master that does not answer), so the worker's blocked fetch is refused (UNBLOCKED), and its
 * retry too (READONLY), on which bull4j drops its connections to reconnect, and the worker reports the error and
 * goes on; then it is a primary
 * again, and a job added afterwards must be processed. One {@code key=value} line per step.
 *
 * <p>Arguments: bull4j's redis URI (a server of the test's own), queue name, a port where nothing listens, and the
 * admin URI for the control connection (REPLICAOF, CLIENT LIST: under the ACL suite bull4j's user may not).
 */
public final class BootLettuceMain {
    private BootLettuceMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("lettuce=" + RedisClient.class.getPackage().getImplementationVersion());
        RedisClient admin = RedisClient.create(args[3]);
        try (StatefulRedisConnection<String, String> control = admin.connect()) {
            // the clients that are not bull4j's (the test's own, e.g. the ACL harness's admin connection)
            run(args, control, clientIds(control));
        } finally {
            admin.shutdown();
        }
    }

    private static void run(String[] args, StatefulRedisConnection<String, String> control, Set<String> others)
            throws Exception {
        try (Bull4jConnection redis = Bull4jConnection.create(args[0]);
             Queue queue = new Queue(args[1], QueueOptions.builder().connection(redis).build())) {
            CompletableFuture<Throwable> fetchError = new CompletableFuture<>();
            Worker worker = new Worker(args[1], job -> "ok", WorkerOptions.builder().connection(redis)
                    .drainDelay(Duration.ofSeconds(1)).build(), new WorkerListener() {
                        @Override
                        public void onError(Throwable error) {
                            // the first refusal is UNBLOCKED; the retry's, on the replica, READONLY
                            if (String.valueOf(error.getMessage()).contains("READONLY")) {
                                fetchError.complete(error);
                            }
                        }
                    });
            try {
                awaitBlocked(control);
                Set<String> before = clientIds(control);
                before.removeAll(others);
                control.sync().replicaof("127.0.0.1", Integer.parseInt(args[2]));
                try {
                    System.out.println("fetchError=" + fetchError.get(20, TimeUnit.SECONDS).getClass().getSimpleName());
                } catch (TimeoutException e) {
                    System.out.println("fetchError=none");
                }
                control.sync().replicaofNoOne();
                Set<String> kept = stillConnected(control, before);
                System.out.println("keptConnections=" + kept.size()); // 0: bull4j dropped (and reopened) its own
                Job job = addOnceWritable(queue);
                System.out.println("completed=" + job.waitUntilFinished(Duration.ofSeconds(20))
                        .returnValue(String.class));
            } finally {
                worker.close();
            }
        }
    }

    /** The ids of the connected clients other than {@code control}. */
    private static Set<String> clientIds(StatefulRedisConnection<String, String> control) {
        String own = String.valueOf(control.sync().clientId());
        Set<String> ids = new HashSet<>();
        for (String line : control.sync().clientList().split("\\R")) {
            for (String field : line.split(" ")) {
                if (field.startsWith("id=") && !field.equals("id=" + own)) {
                    ids.add(field.substring(3));
                }
            }
        }
        return ids;
    }

    /**
     * Those of {@code before} still connected, once none is or after 10 s: bull4j closes its sockets without waiting,
     * so a dropped connection leaves Redis's client list a moment after the error it answers was reported.
     */
    private static Set<String> stillConnected(StatefulRedisConnection<String, String> control, Set<String> before)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            Set<String> kept = clientIds(control);
            kept.retainAll(before);
            if (kept.isEmpty() || System.nanoTime() > deadline) {
                return kept;
            }
            Thread.sleep(20); // a polling pace, bounded by the deadline
        }
    }

    /** Until a client is blocked (the worker's fetch in BZPOPMIN). */
    private static void awaitBlocked(StatefulRedisConnection<String, String> control) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (control.sync().info("clients").contains("blocked_clients:0")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the worker never blocked in its fetch");
            }
            Thread.sleep(20); // a polling pace, bounded by the deadline
        }
    }

    /** The add right after REPLICAOF NO ONE may still meet the dropped connection's reconnect: a few tries. */
    private static Job addOnceWritable(Queue queue) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return queue.add("after", Map.of());
            } catch (RedisException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100); // a retry pace, not a wait for an outcome
            }
        }
    }
}
