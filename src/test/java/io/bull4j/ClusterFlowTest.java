package io.bull4j;

import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static io.bull4j.ClusterQueueTest.key;
import static io.bull4j.ClusterQueueTest.queueOptions;
import static io.bull4j.ClusterQueueTest.redis;
import static io.bull4j.ClusterQueueTest.workerOptions;
import static io.bull4j.TestSupport.eventually;
import static org.junit.jupiter.api.Assertions.*;

/** Flows on a real 3-master Redis Cluster: queues sharing one hash tag work; queues on several slots are refused. */
class ClusterFlowTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @BeforeAll
    static void startCluster() {
        RedisTestCluster.get();
    }

    @Test
    void aFlowOverTwoQueuesUnderOneTaggedPrefixRunsToItsParent() throws Exception {
        String qp = RedisTestServer.uniqueQueueName("cflow-p");
        String qc = RedisTestServer.uniqueQueueName("cflow-c");
        Map<String, Object> saw = new ConcurrentHashMap<>();
        try (FlowProducer flows = new FlowProducer(queueOptions(ClusterQueueTest.PREFIX))) {
            flows.add(FlowJob.builder("p", qp).options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", qc).data(Map.of("n", 2)).options(JobOptions.builder().jobId("C")
                            .build()).build())
                    .build());
            Worker children = new Worker(qc, job -> 21 * ((Number) ((Map<?, ?>) job.data()).get("n")).intValue(),
                    workerOptions(ClusterQueueTest.PREFIX).build());
            Worker parents = new Worker(qp, job -> {
                saw.putAll(job.getChildrenValues());
                return "ok";
            }, workerOptions(ClusterQueueTest.PREFIX).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(qp, "completed"), "P") != null, "parent completed");
            } finally {
                children.close();
                parents.close();
            }
            assertEquals(Map.of(ClusterQueueTest.PREFIX + ":" + qc + ":C", 42), saw);
        }
    }

    @Test
    void aFlowWhoseQueuesWouldSpanSlotsIsRefusedBeforeAnythingIsWritten() {
        String qa = "{" + RedisTestServer.uniqueQueueName("cflow-a") + "}";
        String qb = "{" + RedisTestServer.uniqueQueueName("cflow-b") + "}";
        try (FlowProducer flows = new FlowProducer(queueOptions("bull"))) {
            ValidationException e = assertThrows(ValidationException.class, () -> flows.add(FlowJob.builder("p", qa)
                    .options(JobOptions.builder().jobId("P").build())
                    .child(FlowJob.builder("c", qb).build()).build()));
            assertEquals("queueName", e.field());
            assertTrue(e.getMessage().contains("one hash tag for all the queues of a flow"), e.getMessage());
            assertEquals(0, redis().exists("bull:" + qa + ":P"));
            assertEquals(0, redis().exists("bull:" + qa + ":id"));
            assertEquals(0, redis().exists("bull:" + qb + ":id"));
            ValidationException untagged = assertThrows(ValidationException.class, () -> flows.add(
                    FlowJob.builder("p", RedisTestServer.uniqueQueueName("cflow-untagged")).build()));
            assertEquals("prefix", untagged.field(), "a queue without tag is refused as a Queue refuses it");
        }
    }
}
