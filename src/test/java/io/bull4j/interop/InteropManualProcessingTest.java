package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.Worker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Manual processing across the two sides: jobs added by the real bullmq, taken and finished by hand in Java
 * ({@code getNextJob}, {@code moveToCompleted} with fetchNext, {@code moveToFailed}, {@code moveToDelayed}), then read
 * by bullmq, and the delayed one processed by a bullmq worker.
 */
class InteropManualProcessingTest {
    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void jobsFinishedByHandInJavaReadAsBullmqFinishedThem() {
        String q = queueName("interop-manual");
        List<JsonNode> added = node("add", q, List.of(
                job("sum", Map.of("a", 1, "b", 2), Map.of("jobId", "ok")),
                job("bad", Map.of(), Map.of("jobId", "bad")),
                job("later", Map.of("returns", "from node"), Map.of("jobId", "later"))));
        assertEquals(3, added.size());

        String token = "java-manual:1";
        try (Worker worker = new Worker(q, workerOptions().build())) {
            Job sum = worker.getNextJob(token, true);
            assertEquals("ok", sum.id());
            Map<?, ?> data = (Map<?, ?>) sum.data();
            int total = ((Number) data.get("a")).intValue() + ((Number) data.get("b")).intValue();
            Job bad = sum.moveToCompleted(Map.of("sum", total), token, true);
            assertEquals("bad", bad.id(), "fetchNext took the next job under the same token");
            assertNull(bad.moveToFailed(new IllegalArgumentException("no such account"), token, false));
            Job later = worker.getNextJob(token, false);
            assertEquals("later", later.id());
            later.moveToDelayed(Instant.now().plusMillis(200), token);
        }

        Map<String, JsonNode> seen = finishedById(node("getJobs", q, List.of("ok", "bad", "later")));
        JsonNode ok = seen.get("ok");
        assertEquals("completed", ok.get("state").asText());
        assertEquals(tree(Map.of("sum", 3)), ok.get("returnvalue"));
        assertEquals(1, ok.get("attemptsMade").asInt());
        assertTrue(ok.get("finishedOn").asLong() >= ok.get("processedOn").asLong());
        JsonNode failed = seen.get("bad");
        assertEquals("failed", failed.get("state").asText());
        assertEquals("no such account", failed.get("failedReason").asText());
        assertEquals(1, failed.get("attemptsMade").asInt());
        JsonNode delayed = seen.get("later");
        assertEquals("delayed", delayed.get("state").asText());
        assertEquals(0, delayed.get("attemptsMade").asInt(), "a manual delay spends no attempt");

        List<JsonNode> done = work(q, Map.of("count", 1));
        assertEquals("later", done.get(0).get("id").asText());
        assertEquals("completed", done.get(0).get("event").asText());
        assertEquals("from node", done.get(0).get("returnvalue").asText());
    }
}
