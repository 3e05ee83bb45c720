package io.bull4j;

import io.bull4j.support.RedisTestSentinel;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.ReplyCuttingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

import static io.bull4j.TestSupport.eventually;
import static io.bull4j.TestSupport.queueName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A failover under a running worker and producer: the primary bull4j is connected to becomes a replica, and its
 * replica the primary. Reached through a name that moves to the new primary (a cloud provider's primary endpoint in
 * DNS; here a proxy whose new connections go to the new primary) or through Sentinel, the queue works on the new
 * primary within seconds, without a restart.
 */
class FailoverTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    /**
     * The old primary does not close its clients when it becomes a replica: it answers their writes with READONLY,
     * and the worker's blocked fetch with UNBLOCKED. Without a reconnect on READONLY, every add and fetch would be
     * refused until the process restarts (the failure BullMQ users meet on ElastiCache failovers).
     */
    @Test
    void aMovedEndpointIsFollowedAfterReadOnlyReplies() throws Exception {
        try (RedisTestServer a = RedisTestServer.startDedicated();
             RedisTestServer b = RedisTestServer.startDedicated();
             ReplyCuttingProxy endpoint = new ReplyCuttingProxy(a.host(), a.port())) {
            replicate(b, a);
            String uri = a.bull4jUri().replace(":" + a.port(), ":" + endpoint.port());
            runThroughFailover(uri, a, b, queue -> {
                b.sync().replicaofNoOne();
                endpoint.pointTo(b.port());
                a.sync().replicaof(b.host(), b.port());
            });
            eventually(Duration.ofSeconds(10), () -> linkUp(a), "the old primary replicates from the new one");
        }
    }

    /**
     * Sentinel promotes the replica and reconfigures the old primary; bull4j asks Sentinel again on reconnect. A
     * producer adds all along: no add the old primary acknowledged is lost (bull4j holds its scripts back from the
     * moment the leader Sentinel says it promotes the replica until the switch is announced; without that, about a
     * second of adds was acknowledged by the old primary and lost with its resync).
     */
    @Test
    void aSentinelFailoverIsFollowed() throws Exception {
        try (RedisTestServer a = RedisTestServer.startDedicated();
             RedisTestServer b = RedisTestServer.startDedicated()) {
            replicate(b, a);
            try (RedisTestSentinel sentinel = RedisTestSentinel.start(a)) {
                eventually(Duration.ofSeconds(20), sentinel::hasPromotableReplica, "Sentinel knows the replica");
                // the admin identity: Sentinel itself has no ACL user of the suite's
                runThroughFailover(sentinel.uri(""), a, b, queue -> {
                    List<String> acknowledged = new CopyOnWriteArrayList<>();
                    java.util.concurrent.atomic.AtomicBoolean adding = new java.util.concurrent.atomic.AtomicBoolean(true);
                    Thread producer = new Thread(() -> {
                        for (int n = 0; adding.get(); n++) {
                            String id = "during-" + n;
                            try {
                                queue.add("during", Map.of(), JobOptions.builder().jobId(id).build());
                                acknowledged.add(id);
                            } catch (RedisException e) {
                                LockSupport.parkNanos(Duration.ofMillis(5).toNanos()); // refused, or unknown
                            }
                        }
                    }, "failover-producer");
                    producer.start();
                    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                    while (true) {
                        try {
                            assertEquals("OK", sentinel.sync().failover(RedisTestSentinel.MASTER));
                            break;
                        } catch (io.lettuce.core.RedisCommandExecutionException e) {
                            // NOGOODSLAVE while Sentinel's view of the replica is still being refreshed
                            if (System.nanoTime() > until) {
                                throw e;
                            }
                            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
                        }
                    }
                    try {
                        eventually(Duration.ofSeconds(20), () -> sentinel.primaryPort() == b.port(),
                                "Sentinel switched to the replica");
                        // Sentinel demotes the old primary (and closes its clients) only seconds after the switch;
                        // meanwhile it takes writes, which its resync would then drop: bull4j leaves it at the
                        // switch's announcement, while it is still a primary
                        eventually(Duration.ofSeconds(5), () -> clientsOf(a) == 0, "bull4j left the old primary");
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    assertTrue(a.sync().info("replication").contains("role:master"),
                            "bull4j left before Sentinel demoted the old primary");
                    adding.set(false);
                    try {
                        producer.join(10_000);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    List<String> lost = acknowledged.stream()
                            .filter(id -> b.sync().exists("bull:" + queue.name() + ":" + id) == 0).toList();
                    assertEquals(List.of(), lost, "acknowledged adds missing on the new primary (of "
                            + acknowledged.size() + ")");
                    assertTrue(acknowledged.size() > 10, "the producer added all along: " + acknowledged.size());
                });
            }
        }
    }

    /**
     * A worker and a producer on {@code uri}; one job before {@code failover}, one after it (added with retries, as
     * an application would, since adds sent to the old primary meanwhile are refused), which must be run and end
     * completed on {@code newPrimary}.
     */
    private static void runThroughFailover(String uri, RedisTestServer oldPrimary, RedisTestServer newPrimary,
                                           java.util.function.Consumer<Queue> failover) throws Exception {
        String q = queueName("failover");
        List<String> ran = new CopyOnWriteArrayList<>();
        try (Bull4jConnection conn = Bull4jConnection.create(uri, TIMEOUT);
             Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
            Worker worker = new Worker(q, job -> {
                ran.add(job.id());
                return null;
            }, WorkerOptions.builder().connection(conn).drainDelay(Duration.ofSeconds(1)).build());
            try {
                String before = queue.add("before", Map.of()).id();
                eventually(Duration.ofSeconds(10), () -> oldPrimary.sync().zscore("bull:" + q + ":completed", before)
                        != null, "a job completes before the failover");
                eventually(Duration.ofSeconds(10), () -> newPrimary.sync().hget("bull:" + q + ":" + before,
                        "finishedOn") != null, "its completion is replicated");

                failover.accept(queue);

                String after = addWithRetries(queue, Duration.ofSeconds(20));
                eventually(Duration.ofSeconds(20), () -> ran.contains(after), "the worker runs jobs after it");
                eventually(Duration.ofSeconds(5), () -> newPrimary.sync().zscore("bull:" + q + ":completed", after)
                        != null, "the job ends completed on the new primary");
            } finally {
                worker.close();
            }
        }
    }

    /** Adds one job with a fixed id until an add succeeds, as an application retrying would; its id. */
    static String addWithRetries(Queue queue, Duration limit) {
        long until = System.nanoTime() + limit.toNanos();
        RedisException last = null;
        while (System.nanoTime() < until) {
            try {
                return queue.add("after", Map.of(), JobOptions.builder().jobId("after-failover").build()).id();
            } catch (RedisException e) {
                last = e; // refused by the old primary (READONLY), or rejected while reconnecting
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }
        fail("no add succeeded within " + limit + "; last error: " + last);
        return null;
    }

    private static void replicate(RedisTestServer replica, RedisTestServer primary) throws InterruptedException {
        replica.sync().replicaof(primary.host(), primary.port());
        eventually(Duration.ofSeconds(10), () -> linkUp(replica), "the replica is in sync");
    }

    /** Client connections to {@code server} other than Sentinel's, replication's and the test's own. */
    private static long clientsOf(RedisTestServer server) {
        return server.sync().clientList().lines()
                .filter(l -> !l.contains(" name=sentinel-") && !l.contains(" flags=S ") && !l.contains(" flags=M ")
                        && !l.contains(" cmd=client|list "))
                .count();
    }

    private static boolean linkUp(RedisTestServer replica) {
        return replica.sync().info("replication").contains("master_link_status:up");
    }
}
