package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** The two-way smoke test against the real bullmq 6.7.0: each side processes the other's job and reads its result. */
class InteropSmokeTest {
    private static final Duration NODE = Duration.ofSeconds(60);

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    record Order(String sku, int qty) {
    }

    @Test
    void jobAddedByBullmqIsProcessedByBull4j() throws Exception {
        String q = queueName("interop-n2j");
        String uri = RedisTestServer.get().uri();
        JsonNode added = NodeBullmq.runOne(NODE, "add", uri, q, "order", "{\"sku\":\"A-1\",\"qty\":3}");
        String id = added.get("id").asText();

        CompletableFuture<Job> done = new CompletableFuture<>();
        Worker worker = new Worker(q, job -> {
            Order order = job.data(Order.class);
            return Map.of("total", order.qty() * 10, "sku", order.sku());
        }, workerOptions().build(), new WorkerListener() { // registered before the worker starts: none is missed
            @Override
            public void onCompleted(Job job, Object result) {
                done.complete(job);
            }
        });
        try {
            assertEquals(id, await(done).id());
        } finally {
            worker.close();
        }

        JsonNode seen = NodeBullmq.runOne(NODE, "getJob", uri, q, id);
        assertEquals("completed", seen.get("state").asText());
        assertEquals(30, seen.get("returnvalue").get("total").asInt());
        assertEquals("A-1", seen.get("returnvalue").get("sku").asText());
        assertEquals(1, seen.get("attemptsMade").asInt());
    }

    @Test
    void jobAddedByBull4jIsProcessedByBullmq() throws Exception {
        String q = queueName("interop-j2n");
        String uri = RedisTestServer.get().uri();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("order", new Order("B-2", 4), JobOptions.builder().attempts(2).build());

            List<JsonNode> processed = NodeBullmq.run(NODE, "process", uri, q, "1", "{\"shipped\":true,\"n\":7}");
            assertEquals(1, processed.size());
            assertEquals(job.id(), processed.get(0).get("id").asText());
            assertEquals("B-2", processed.get(0).get("data").get("sku").asText());
            assertEquals(4, processed.get(0).get("data").get("qty").asInt());

            Job after = queue.getJob(job.id());
            assertEquals(Map.of("shipped", true, "n", 7), after.returnValue(Map.class));
            assertEquals(1, after.attemptsMade());
            assertNotNull(after.finishedOn());
            assertNotNull(redis().zscore("bull:" + q + ":completed", job.id()));
        }
    }
}
