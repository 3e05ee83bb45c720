package io.bull4j.interop;

import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropKit.*;
import static io.bull4j.interop.ObservabilityKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Queue.exportPrometheusMetrics against bullmq 6.7.0's exportPrometheusMetrics on the same queue: the same text,
 * line by line, with and without labels, after jobs in most states and metrics written by both sides' workers.
 */
class InteropPrometheusTest {
    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    private static void assertSameLines(String theirs, String mine) {
        assertEquals(List.of(theirs.split("\n", -1)), List.of(mine.split("\n", -1)));
        assertEquals(theirs, mine);
    }

    @Test
    void sameTextAsBullmqForTheSameState() throws Exception {
        String q = queueName("prom \"quoted\\");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("ok", Map.of("at", 1_800_000_000_000L, "fail", false));
            queue.add("bad", Map.of("at", 1_800_000_060_000L, "fail", true));
            bullmq("work", q, Map.of("count", 2, "metrics", 10));
            queue.add("ok", Map.of("at", 1_800_000_120_000L, "fail", false));
            javaWork(q, 10, 1);
            queue.add("w1", Map.of());
            queue.add("w2", Map.of());
            queue.add("p", Map.of(), JobOptions.builder().priority(2).build());
            queue.add("d", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build());

            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("env", "prod \"a\"\\b\nc");
            labels.put("host", "h1");
            String mine = queue.exportPrometheusMetrics(labels);
            String theirs = bullmq("prometheus", q, Map.of("labels", labels)).get("text").asText();
            assertSameLines(theirs, mine);
            assertTrue(mine.contains("bullmq_job_completed_total{queue=\"" + q.replace("\\", "\\\\")
                    .replace("\"", "\\\"") + "\", env="), mine);
            assertTrue(mine.endsWith("} 1"), "one failure counted: " + mine);
            assertTrue(mine.contains("_total{") && mine.contains("} 2\n"), "two completions counted: " + mine);

            assertSameLines(bullmq("prometheus", q, null).get("text").asText(), queue.exportPrometheusMetrics());
        }
    }
}
