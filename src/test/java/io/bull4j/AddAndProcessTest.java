package io.bull4j;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

class AddAndProcessTest {
    record Email(String to) {
    }

    @Test
    void addedJobIsProcessedAndItsResultStored() throws Exception {
        String q = queueName("basic");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("welcome", Map.of("to", "ana@example.com"));
            assertEquals("1", job.id());
            Map<String, String> hash = redis().hgetall("bull:" + q + ":1");
            assertEquals("welcome", hash.get("name"));
            assertEquals("{\"to\":\"ana@example.com\"}", hash.get("data"));
            assertEquals("{\"attempts\":0}", hash.get("opts"));
            assertEquals("0", hash.get("delay"));
            assertEquals("0", hash.get("priority"));
            assertEquals(java.util.List.of("1"), redis().lrange("bull:" + q + ":wait", 0, -1));

            CompletableFuture<Object> done = new CompletableFuture<>();
            // listening from the start: the waiting job can finish before the constructor's caller goes on
            WorkerListener completion = new WorkerListener() {
                @Override
                public void onCompleted(Job j, Object result) {
                    done.complete(result);
                }
            };
            Worker worker = new Worker(q, j -> Map.of("sentTo", j.data(Email.class).to()), workerOptions().build(),
                    completion);
            try {
                assertEquals(Map.of("sentTo", "ana@example.com"), await(done));
            } finally {
                worker.close();
            }
            Map<String, String> after = redis().hgetall("bull:" + q + ":1");
            assertEquals("{\"sentTo\":\"ana@example.com\"}", after.get("returnvalue"));
            assertEquals("1", after.get("atm"));
            assertEquals("1", after.get("ats"));
            assertNotNull(after.get("finishedOn"));
            assertNotNull(redis().zscore("bull:" + q + ":completed", "1"));
            assertEquals(0, redis().llen("bull:" + q + ":active"));
            assertEquals(0, redis().exists("bull:" + q + ":1:lock"));
            assertEquals(Map.of("sentTo", "ana@example.com"), queue.getJob("1").returnValue(Map.class));
        }
    }
}
