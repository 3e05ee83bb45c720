package io.bull4j;

import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import static io.bull4j.ClusterQueueTest.PREFIX;
import static io.bull4j.ClusterQueueTest.queueOptions;
import static io.bull4j.ClusterQueueTest.workerOptions;
import static io.bull4j.TestSupport.eventually;
import static org.junit.jupiter.api.Assertions.*;

/** The observability getters on Redis Cluster: getWorkers reads every master's CLIENT LIST; metrics and counts. */
class ClusterGettersTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @BeforeAll
    static void startCluster() {
        RedisTestCluster.get();
    }

    @Test
    void getWorkersFindsTheWorkerOnTheClusterAndMetricsAreCounted() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-getters");
        String raw = PREFIX + ":" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8)) + ":w:cw";
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            queue.add("j", Map.of());
            Worker worker = new Worker(q, j -> "ok", workerOptions(PREFIX).name("cw").metrics(5).build());
            try {
                eventually(WAIT, () -> queue.getWorkers().stream().anyMatch(w -> raw.equals(w.get("rawname"))),
                        "the worker listed");
                eventually(WAIT, () -> queue.getMetrics(JobState.COMPLETED).count() == 1, "completion counted");
            } finally {
                worker.close();
            }
            assertTrue(queue.getWorkers().stream().allMatch(w -> q.equals(w.get("name"))));
            assertTrue(queue.exportPrometheusMetrics().contains("bullmq_job_completed_total{queue=\"" + q + "\"} 1"));
            assertEquals(Map.of(0, 0L), queue.getCountsPerPriority(0));
        }
    }
}
