package io.bull4j;

import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bull4j.ClusterQueueTest.PREFIX;
import static io.bull4j.ClusterQueueTest.queueOptions;
import static io.bull4j.ClusterQueueTest.redis;
import static io.bull4j.ClusterQueueTest.workerOptions;
import static io.bull4j.TestSupport.await;
import static io.bull4j.TestSupport.eventually;
import static org.junit.jupiter.api.Assertions.*;

/** QueueEvents on a Cluster: XREAD BLOCK on its own cluster connection, routed to the master of the queue's slot. */
class ClusterQueueEventsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @BeforeAll
    static void startCluster() {
        RedisTestCluster.get();
    }

    @Test
    void queueEventsFollowAQueueOnTheCluster() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-events");
        List<String> seen = new CopyOnWriteArrayList<>();
        CompletableFuture<QueueEvent> completed = new CompletableFuture<>();
        QueueEventsOptions opts = QueueEventsOptions.builder().connection(RedisTestCluster.get().connection())
                .prefix(PREFIX).blockTimeout(Duration.ofSeconds(1)).build();
        try (Queue queue = new Queue(q, queueOptions(PREFIX));
             QueueEvents events = new QueueEvents(q, opts)) {
            events.addListener(e -> seen.add(e.type().wireName() + ":" + e.jobId()));
            events.on(QueueEvent.Type.COMPLETED, completed::complete);
            String reader = "name=" + PREFIX + ":" + Base64.getEncoder().encodeToString(q.getBytes(
                    StandardCharsets.UTF_8)) + ":qe ";
            eventually(WAIT, () -> redis().getConnection(masterOf(q)).clientList().lines()
                    .anyMatch(l -> l.contains(reader) && l.contains("cmd=xread")), "XREAD BLOCK on the master");

            Job job = queue.add("j", Map.of("n", 1));
            Worker worker = new Worker(q, j -> Map.of("ok", true), workerOptions(PREFIX).build());
            try {
                QueueEvent done = await(completed);
                assertEquals(job.id(), done.jobId());
                assertEquals("{\"ok\":true}", done.returnValueJson());
                Job second = queue.add("k", Map.of());
                assertEquals("{\"ok\":true}", second.waitUntilFinished(events, WAIT).returnValueJson());
            } finally {
                worker.close();
            }
            assertEquals(List.of("added:1", "waiting:1", "active:1", "completed:1"),
                    seen.stream().filter(s -> s.endsWith(":1")).toList());
            // the reader catches up with the stream's last entry
            eventually(WAIT, () -> lastId(q).equals(events.lastEventId()), "reader at the stream's end");
        }
    }

    private static String lastId(String q) {
        return redis().xrevrange(ClusterQueueTest.key(q, "events"), Range.create("-", "+"), Limit.from(1)).get(0)
                .getId();
    }

    private static String masterOf(String q) {
        int slot = redis().clusterKeyslot(ClusterQueueTest.key(q, "events")).intValue();
        return redis().getStatefulConnection().getPartitions().getPartitionBySlot(slot).getNodeId();
    }
}
