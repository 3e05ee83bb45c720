package io.bull4j;

import io.bull4j.internal.keys.KeySlot;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.ClusterQueueTest.queueOptions;
import static io.bull4j.ClusterQueueTest.workerOptions;
import static org.junit.jupiter.api.Assertions.*;

/** On a Cluster, a queue without a hash tag is refused at construction, before anything reaches Redis. */
class ClusterValidationTest {
    private static RedisTestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisTestCluster.get();
    }

    private static RedisAdvancedClusterCommands<String, String> redis() {
        return cluster.sync();
    }

    private static void assertRefused(ValidationException e, String q) {
        assertEquals("prefix", e.field());
        assertTrue(e.getMessage().contains("prefix(\"{bull}\")"), e.getMessage());
        assertTrue(e.getMessage().contains("\"{" + q + "}\""), e.getMessage());
    }

    @Test
    void queueWithoutAHashTagIsRefusedAtOnce() {
        String q = RedisTestServer.uniqueQueueName("cl-untagged");
        ValidationException e = assertThrows(ValidationException.class, () -> new Queue(q, queueOptions("bull")));
        assertRefused(e, q);
        assertEquals(List.of(), redis().keys("*" + q + "*"), "nothing was written");
    }

    @Test
    void workerWithoutAHashTagIsRefusedAtOnce() {
        String q = RedisTestServer.uniqueQueueName("cl-untagged-w");
        ValidationException e = assertThrows(ValidationException.class,
                () -> new Worker(q, j -> null, workerOptions("bull").build()));
        assertRefused(e, q);
        assertEquals(List.of(), redis().keys("*" + q + "*"), "nothing was written");
    }

    @Test
    void aDeadLetterQueueInAnotherSlotIsRefusedAtOnce() {
        // each name its own tag, as operations.md advises for spreading queues: two slots
        String bare = RedisTestServer.uniqueQueueName("cl-dlq-slot");
        String q = "{" + bare + "}";
        String dead = "{" + RedisTestServer.uniqueQueueName("cl-dlq-slot-dead") + "}";
        assertEquals("deadLetterQueue", assertThrows(ValidationException.class, () -> new Worker(q, j -> null,
                workerOptions("bull").deadLetterQueue(dead).build())).field());
        assertEquals("deadLetterQueue", assertThrows(ValidationException.class, () -> new Worker(q, j -> null,
                workerOptions("bull").deadLetterQueue("plain-dead").build())).field());
        // one tag for both: fine
        new Worker(q, j -> null, workerOptions("bull").deadLetterQueue(q + "-dead").autorun(false).build()).close();
        assertEquals(List.of(), redis().keys("*" + bare + "*"), "nothing was written");
    }

    @Test
    void aFlowsOutsideParentInAnotherSlotIsRefusedAtOnce() {
        String bare = RedisTestServer.uniqueQueueName("cl-ext-parent");
        String q = "{" + bare + "}";
        try (FlowProducer flows = new FlowProducer(queueOptions("bull"))) {
            FlowJob child = FlowJob.builder("c", q).parent(ParentRef.of("p1", "bull:{elsewhere}")).build();
            assertEquals("parent", assertThrows(ValidationException.class, () -> flows.add(child)).field());
        }
        assertEquals(List.of(), redis().keys("*" + bare + "*"), "nothing was written");
    }

    @Test
    void theSameNamesAreFineOnAStandaloneServer() {
        String q = RedisTestServer.uniqueQueueName("standalone");
        try (Queue queue = new Queue(q, TestSupport.queueOptions())) {
            assertEquals("bull:" + q, queue.qualifiedName());
        }
    }

    @Test
    void badSeedUrisAreRefused() {
        assertEquals("seedUris", assertThrows(ValidationException.class,
                () -> Bull4jConnection.createCluster()).field());
        assertEquals("seedUris", assertThrows(ValidationException.class,
                () -> Bull4jConnection.createCluster("redis://127.0.0.1:1", null)).field());
        assertEquals("seedUris", assertThrows(ValidationException.class,
                () -> Bull4jConnection.createCluster("not a uri")).field());
        assertEquals("commandTimeout", assertThrows(ValidationException.class,
                () -> Bull4jConnection.createCluster(cluster.seedUris(), Duration.ZERO)).field());
    }

    @Test
    void noReachableSeedFailsWithARedisException() {
        assertThrows(RedisException.class, () -> Bull4jConnection.createCluster(List.of("redis://127.0.0.1:1"),
                Duration.ofSeconds(2)));
    }

    @Test
    void oneSeedIsEnoughAndTheConnectionIsClosedWithItsClient() {
        try (Bull4jConnection c = Bull4jConnection.createCluster(List.of(cluster.seedUris().get(1)),
                Duration.ofSeconds(5))) {
            assertTrue(c.serverVersion().startsWith("7.") || c.serverVersion().startsWith("6."), c.serverVersion());
            String q = "{" + RedisTestServer.uniqueQueueName("cl-seed") + "}";
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(c).build())) {
                queue.add("j", Map.of());
            }
            assertEquals(1, redis().llen("bull:" + q + ":wait"));
        }
    }

    /** Our slot computation agrees with the cluster's own CLUSTER KEYSLOT for every key of a tagged queue. */
    @Test
    void slotsAgreeWithClusterKeyslot() {
        QueueKeys k = new QueueKeys("{bull}", "emails");
        for (String key : List.of(k.waitList(), k.events(), k.job("7"), k.lock("7"), k.logs("7"), k.base(),
                "bull:emails:wait", "bull:{ñ}:1", "x{}{y}")) {
            assertEquals(redis().clusterKeyslot(key).intValue(), KeySlot.of(key), key);
        }
        assertEquals(redis().clusterKeyslot("bull").intValue(), k.slot());
    }
}
