package io.bull4j;

import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.ClusterQueueTest.PREFIX;
import static io.bull4j.ClusterQueueTest.key;
import static io.bull4j.ClusterQueueTest.queueOptions;
import static io.bull4j.ClusterQueueTest.workerOptions;
import static io.bull4j.TestSupport.eventually;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job control on Redis Cluster with a hash-tagged prefix: a cancel request from another client (the worker reads it
 * with MGET) and a dead letter written by the finish script into another queue of the same slot.
 */
class ClusterJobControlTest {
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
    void aCancelRequestThroughTheQueueReachesTheWorker() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-cancel");
        CountDownLatch started = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions(PREFIX));
             Worker worker = new Worker(q, job -> {
                 started.countDown();
                 new CountDownLatch(1).await();
                 return null;
             }, workerOptions(PREFIX).build())) {
            queue.add("long", Map.of(), JobOptions.builder().jobId("c1").build());
            assertTrue(started.await(20, TimeUnit.SECONDS));
            assertTrue(queue.cancelJob("c1", "stopped on the cluster"));
            eventually(WAIT, () -> redis().zscore(key(q, "failed"), "c1") != null, "c1 failed");
            assertEquals("stopped on the cluster", redis().hget(key(q, "c1"), "failedReason"));
        }
    }

    @Test
    void aDeadLetterIsWrittenIntoTheOtherQueueOfTheSameSlot() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-dlq");
        String dead = q + "-dead";
        try (Queue queue = new Queue(q, queueOptions(PREFIX));
             Queue dlq = new Queue(dead, queueOptions(PREFIX));
             Worker worker = new Worker(q, job -> {
                 throw new IllegalStateException("no");
             }, workerOptions(PREFIX).deadLetterQueue(dead).build())) {
            queue.add("f", Map.of("x", 1), JobOptions.builder().jobId("f1").build());
            eventually(WAIT, () -> redis().llen(key(dead, "wait")) == 1, "one dead letter");
            List<Job> letters = dlq.getJobs(JobState.WAITING);
            assertEquals("f1", letters.get(0).deadLetter().jobId());
            assertEquals(Map.of("x", 1), letters.get(0).data());
            assertNotNull(redis().zscore(key(q, "failed"), "f1"));
        }
    }
}
