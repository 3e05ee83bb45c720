package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Queue.exportPrometheusMetrics: BullMQ's text for a known state, labels escaped, bad labels refused. */
class PrometheusExportTest {
    @Test
    void textListsEveryStateAndTheFinishedTotals() throws Exception {
        String q = queueName("prom");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("a", Map.of());
            queue.add("b", Map.of());
            queue.add("p", Map.of(), JobOptions.builder().priority(3).build());
            queue.add("d", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build());
            redis().hset("bull:" + q + ":metrics:completed", Map.of("count", "12"));
            redis().hset("bull:" + q + ":metrics:failed", Map.of("count", "5", "prevTS", "1", "prevCount", "2"));
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put("env", "pr\"od\\1\nx");
            labels.put("region", "eu");
            String extra = ", env=\"pr\\\"od\\\\1\\nx\", region=\"eu\"";
            String expected = String.join("\n",
                    "# HELP bullmq_job_count Number of jobs in the queue by state",
                    "# TYPE bullmq_job_count gauge",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"active\"" + extra + "} 0",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"completed\"" + extra + "} 0",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"delayed\"" + extra + "} 1",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"failed\"" + extra + "} 0",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"prioritized\"" + extra + "} 1",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"waiting\"" + extra + "} 2",
                    "bullmq_job_count{queue=\"" + q + "\", state=\"waiting-children\"" + extra + "} 0",
                    "# HELP bullmq_job_completed_total Total number of completed jobs",
                    "# TYPE bullmq_job_completed_total counter",
                    "bullmq_job_completed_total{queue=\"" + q + "\"" + extra + "} 12",
                    "# HELP bullmq_job_failed_total Total number of failed jobs",
                    "# TYPE bullmq_job_failed_total counter",
                    "bullmq_job_failed_total{queue=\"" + q + "\"" + extra + "} 5");
            assertEquals(expected, queue.exportPrometheusMetrics(labels));
            assertEquals(expected.replace(extra, ""), queue.exportPrometheusMetrics());
            assertEquals(expected.replace(extra, ""), queue.exportPrometheusMetrics(Map.of()));
        }
    }

    @Test
    void badLabelsAreRefused() {
        String q = queueName("prom-bad");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (String name : new String[] {"", "1x", "a-b", "a b", "queue", "state", "__name__"}) {
                ValidationException e = assertThrows(ValidationException.class,
                        () -> queue.exportPrometheusMetrics(Map.of(name, "v")));
                assertTrue(e.getMessage().contains("labels"), e.getMessage());
            }
            Map<String, String> nullValue = new LinkedHashMap<>();
            nullValue.put("k", null);
            assertThrows(ValidationException.class, () -> queue.exportPrometheusMetrics(nullValue));
        }
    }
}
