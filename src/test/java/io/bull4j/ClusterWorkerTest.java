package io.bull4j;

import io.bull4j.internal.script.LuaScript;
import io.bull4j.internal.script.MoveToActive;
import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.ClusterQueueTest.PREFIX;
import static io.bull4j.ClusterQueueTest.eventNames;
import static io.bull4j.ClusterQueueTest.key;
import static io.bull4j.ClusterQueueTest.queueOptions;
import static io.bull4j.ClusterQueueTest.workerOptions;
import static io.bull4j.TestSupport.await;
import static io.bull4j.TestSupport.eventually;
import static org.junit.jupiter.api.Assertions.*;

/** Worker behaviour that depends on Cluster routing: stalled recovery, scripts on every node, the blocking fetch. */
class ClusterWorkerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static RedisTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisTestCluster.get();
    }

    private static RedisAdvancedClusterCommands<String, String> redis() {
        return cluster.sync();
    }

    @Test
    void stalledJobIsRecoveredAndCompleted() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-stalled");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            queue.add("j", Map.of());
            // a worker that took the job and died: active, lock gone
            QueueContext ctx = queue.context();
            String id = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "dead:1", 30_000, null),
                    "moveToActive").id();
            assertEquals(1, redis().del(key(q, id + ":lock")));
            Worker worker = new Worker(q, j -> runs.incrementAndGet(),
                    workerOptions(PREFIX).stalledInterval(Duration.ofMillis(500)).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), id) != null, "recovered and completed");
            } finally {
                worker.close();
            }
            assertEquals(1, runs.get());
            assertEquals("1", redis().hget(key(q, id), "stc"));
            assertEquals(List.of("added", "waiting", "active", "waiting", "stalled", "active", "completed"),
                    eventNames(PREFIX, q, id));
        }
    }

    /**
     * Queues tagged onto each of the three masters, after the script caches of all of them were flushed: every
     * node gets its scripts through the NOSCRIPT fallback, and the worker's blocking fetch runs on each node.
     */
    @Test
    void queuesOnEveryNodeWorkAfterTheScriptCachesAreFlushed() throws Exception {
        Map<String, String> queueByNode = queuePerNode();
        assertEquals(3, queueByNode.size(), "one queue per master: " + queueByNode);
        redis().masters().commands().scriptFlush();
        String addSha = LuaScript.load("addJob").sha();
        for (Map.Entry<String, String> e : queueByNode.entrySet()) {
            String q = e.getValue();
            assertEquals(List.of(false), redis().getConnection(e.getKey()).scriptExists(addSha));
            CompletableFuture<String> done = new CompletableFuture<>();
            try (Queue queue = new Queue(q, queueOptions("bull"))) {
                Worker worker = new Worker(q, j -> done.complete(j.id()), workerOptions("bull").build());
                try {
                    // the worker idles in BZPOPMIN on that node, under its name, until the add wakes it
                    eventually(WAIT, () -> blockedOn(e.getKey(), q), "named BZPOPMIN on node " + e.getKey());
                    Job job = queue.add("j", Map.of());
                    assertEquals(job.id(), await(done));
                    eventually(WAIT, () -> redis().zscore(key("bull", q, "completed"), job.id()) != null,
                            "completed on node " + e.getKey());
                } finally {
                    worker.close();
                }
            }
            assertEquals(List.of(true), redis().getConnection(e.getKey()).scriptExists(addSha),
                    "addJob was loaded on the node that serves " + q);
        }
    }

    /** Whether the node has a connection named as the queue's worker, blocked in BZPOPMIN. */
    private static boolean blockedOn(String nodeId, String q) {
        String name = "name=bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8)) + " ";
        return redis().getConnection(nodeId).clientList().lines()
                .anyMatch(l -> l.contains(name) && l.contains("cmd=bzpopmin"));
    }

    /** A tagged queue name for each master, keyed by the node's id. */
    private static Map<String, String> queuePerNode() {
        Partitions partitions = redis().getStatefulConnection().getPartitions();
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < 200 && out.size() < 3; i++) {
            String q = "{" + RedisTestServer.uniqueQueueName("cl-node") + "}";
            int slot = redis().clusterKeyslot(key("bull", q, "wait")).intValue();
            RedisClusterNode node = partitions.getPartitionBySlot(slot);
            out.putIfAbsent(node.getNodeId(), q);
        }
        return out;
    }
}
