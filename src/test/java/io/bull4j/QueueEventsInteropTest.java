package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Events between bull4j and the real bullmq 6.7.0: each side's QueueEvents reads what the other wrote. */
class QueueEventsInteropTest {
    private static final Duration NODE = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    private static QueueEvents events(String q, String from) {
        return new QueueEvents(q, QueueEventsOptions.builder().connection(connection()).lastEventId(from).build());
    }

    @Test
    void bull4jReadsWhatBullmqWrites() throws Exception {
        String q = queueName("qe-n2j");
        String uri = RedisTestServer.get().uri();
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = events(q, "$")) {
            events.addListener(rec);
            String ok = NodeBullmq.runOne(NODE, "add", uri, q, "ok", "{\"x\":1}").get("id").asText();
            assertEquals("ok", rec.await(ADDED, ok).jobName());
            Job waited = queue.getJob(ok);
            CompletableFuture<Job> done = CompletableFuture.supplyAsync(
                    () -> waited.waitUntilFinished(events, Duration.ofSeconds(30)));
            NodeBullmq.run(NODE, "process", uri, q, "1", "{\"ok\":true,\"list\":[1,2]}");
            assertEquals(JobState.WAITING, rec.await(ACTIVE, ok).prev());
            QueueEvent completed = rec.await(COMPLETED, ok);
            assertEquals(JSON.readTree("{\"ok\":true,\"list\":[1,2]}"), JSON.readTree(completed.returnValueJson()));
            assertEquals(JobState.ACTIVE, completed.prev());
            assertEquals(Map.of("ok", true, "list", List.of(1, 2)), await(done).returnValue(Map.class));
            rec.await(DRAINED, null);

            String bad = NodeBullmq.runOne(NODE, "add", uri, q, "bad", "{}").get("id").asText();
            NodeBullmq.run(NODE, "fail", uri, q, "1", "node says no");
            assertEquals("node says no", rec.await(FAILED, bad).failedReason());
            assertEquals(1, rec.await(RETRIES_EXHAUSTED, bad).attemptsMade());

            JsonNode later = NodeBullmq.runOne(NODE, "add", uri, q, "later", "{}", "{\"delay\":60000}");
            String laterId = later.get("id").asText();
            assertEquals(queue.getJob(laterId).timestamp().plusSeconds(60), rec.await(DELAYED, laterId).delay());

            String kept = NodeBullmq.runOne(NODE, "add", uri, q, "d", "{}", "{\"deduplication\":{\"id\":\"d1\"}}")
                    .get("id").asText();
            NodeBullmq.runOne(NODE, "add", uri, q, "d", "{}", "{\"deduplication\":{\"id\":\"d1\"}}");
            QueueEvent dedup = rec.await(DEDUPLICATED, kept);
            assertEquals("d1", dedup.deduplicationId());
            assertNotEquals(kept, dedup.deduplicatedJobId(), "the ignored add's id");
            rec.assertMatchesStream(q);
        }
    }

    @Test
    void bullmqReadsWhatBull4jWrites() throws Exception {
        String q = queueName("qe-j2n");
        String uri = RedisTestServer.get().uri();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job good = queue.add("good", Map.of());
            Job bad = queue.add("bad", Map.of());
            try (Worker worker = new Worker(q, job -> {
                if (job.name().equals("bad")) {
                    throw new IllegalStateException("java says no");
                }
                job.updateProgress(Map.of("step", 2));
                return List.of("a", 1);
            }, workerOptions().build())) {
                good.waitUntilFinished(Duration.ofSeconds(20));
                assertThrows(JobFailedException.class, () -> bad.waitUntilFinished(Duration.ofSeconds(20)));
            }
            Job later = queue.add("later", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(5)).build());
            queue.pause();
            queue.resume();
            assertTrue(later.remove());
            queue.clean(Duration.ZERO, 0, JobState.COMPLETED);

            // bull4j's reader and bullmq's, each over the whole stream
            QueueEventsRecorder rec = new QueueEventsRecorder();
            long total = redis().xlen("bull:" + q + ":events");
            // started once the listener is on: from "0" the first entries would otherwise be delivered at once
            try (QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection())
                    .lastEventId("0").autorun(false).build())) {
                events.addListener(rec);
                events.run();
                rec.await(CLEANED, null);
            }
            List<QueueEvent> ours = rec.events();
            assertEquals(total, ours.size());
            List<JsonNode> theirs = NodeBullmq.run(NODE, "events", uri, q, Long.toString(total), "0");
            assertEquals(ours.size(), theirs.size());
            for (int i = 0; i < ours.size(); i++) {
                QueueEvent e = ours.get(i);
                JsonNode n = theirs.get(i);
                assertEquals(e.eventName(), n.get("event").asText(), "event " + i);
                assertEquals(e.id(), n.get("id").asText(), "event " + i);
                assertEquals(e.jobId(), n.hasNonNull("jobId") ? n.get("jobId").asText() : null, "event " + i);
                switch (e.type()) {
                    case COMPLETED:
                        // bullmq hands over the parsed value
                        assertEquals(JSON.readTree("[\"a\",1]"), n.get("returnvalue"));
                        break;
                    case PROGRESS:
                        assertEquals(2, n.get("data").get("step").asInt());
                        break;
                    case FAILED:
                        assertEquals("java says no", n.get("failedReason").asText());
                        break;
                    case DELAYED:
                        assertTrue(n.get("delay").isNumber(), "bullmq turns delay into a number");
                        assertEquals(e.delay(), Instant.ofEpochMilli(n.get("delay").asLong()));
                        break;
                    case CLEANED:
                        assertEquals(String.valueOf(e.count()), n.get("count").asText());
                        break;
                    default:
                        break;
                }
            }
            assertTrue(ours.stream().map(QueueEvent::type).toList().containsAll(List.of(ADDED, WAITING, ACTIVE,
                    PROGRESS, COMPLETED, FAILED, RETRIES_EXHAUSTED, DRAINED, DELAYED, PAUSED, RESUMED, REMOVED,
                    CLEANED)), "every kind made it across");
        }
    }
}
