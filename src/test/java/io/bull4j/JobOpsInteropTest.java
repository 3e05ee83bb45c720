package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.bull4j.JobOpsFixtures.key;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job operations by bull4j on jobs of the real bullmq 6.7.0, which must then see and process them. */
class JobOpsInteropTest {
    private static final Duration NODE = Duration.ofSeconds(60);

    private static JsonNode node(String... args) {
        return NodeBullmq.runOne(NODE, args);
    }

    @Test
    void aNodeJobPromotedAndReprioritizedByBull4jIsSeenAndRunByNode() {
        NodeBullmq.assumeAvailable();
        String uri = RedisTestServer.get().uri();
        String q = queueName("interop-promote");
        String id = node("add", uri, q, "n", "{}", "{\"delay\":3600000,\"priority\":2}").get("id").asText();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.getJob(id);
            job.changePriority(5);
            job.promote();
        }
        JsonNode seen = node("getJob", uri, q, id);
        assertEquals("prioritized", seen.get("state").asText(), seen.toString());
        assertEquals(5, seen.get("priority").asInt());
        assertEquals(0, seen.get("delay").asInt());
        List<JsonNode> done = NodeBullmq.run(NODE, "process", uri, q, "1", "\"ok\"");
        assertEquals(id, done.get(0).get("id").asText(), done.toString());
        assertNotNull(redis().zscore(key(q, "completed"), id));
    }

    @Test
    void aNodeJobRescheduledByBull4jIsRunByNodeWhenDue() {
        NodeBullmq.assumeAvailable();
        String uri = RedisTestServer.get().uri();
        String q = queueName("interop-delay");
        String id = node("add", uri, q, "n", "{}", "{\"delay\":3600000}").get("id").asText();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.getJob(id).changeDelay(Duration.ofMillis(200));
        }
        assertEquals("delayed", node("getJob", uri, q, id).get("state").asText());
        List<JsonNode> done = NodeBullmq.run(NODE, "process", uri, q, "1", "1");
        assertEquals(id, done.get(0).get("id").asText(), done.toString());
    }

    @Test
    void aJobFailedByNodeAndRetriedByBull4jIsRunAgainByNode() {
        NodeBullmq.assumeAvailable();
        String uri = RedisTestServer.get().uri();
        String q = queueName("interop-retry");
        String id = node("add", uri, q, "n", "{}").get("id").asText();
        NodeBullmq.run(NODE, "fail", uri, q, "1", "boom");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.getJob(id).retry();
        }
        JsonNode waiting = node("getJob", uri, q, id);
        assertEquals("waiting", waiting.get("state").asText(), waiting.toString());
        assertTrue(waiting.path("failedReason").isNull() || waiting.path("failedReason").isMissingNode()
                || waiting.path("failedReason").asText().isEmpty(), waiting.toString());
        NodeBullmq.run(NODE, "process", uri, q, "1", "{\"second\":true}");
        JsonNode done = node("getJob", uri, q, id);
        assertEquals("completed", done.get("state").asText(), done.toString());
        assertEquals(2, done.get("attemptsMade").asInt(), done.toString());
    }
}
