package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueEvent;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** clean, drain and obliterate done by one side are seen by the other, in its counts, its getJob and Redis. */
class InteropAdminCleanTest {
    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** The ids of a job of each kind: completed c1, c2; failed f; waiting w1, w2; prioritized p; delayed d. */
    private record Made(String c1, String c2, String f, String w1, String w2, String p, String d) {
    }

    private static boolean gone(String q, String id) {
        return redis().exists(key(q, id)) == 0;
    }

    private static Map<String, Long> nodeCounts(String q) {
        JsonNode c = op(q, obj("op", "counts"));
        return Map.of("completed", c.get("completed").asLong(), "failed", c.get("failed").asLong(),
                "waiting", c.get("waiting").asLong(), "prioritized", c.get("prioritized").asLong(),
                "delayed", c.get("delayed").asLong(), "active", c.get("active").asLong());
    }

    @Test
    void nodeCleansDrainsAndObliteratesAndBull4jSeesIt() throws Exception {
        String q = queueName("clean-n2j");
        try (Queue queue = new Queue(q, queueOptions())) {
            String c1 = queue.add("c", Map.of()).id();
            String c2 = queue.add("c", Map.of()).id();
            String f = queue.add("f", Map.of()).id();
            runJavaWorker(q, 3, job -> {
                if (job.name().equals("f")) {
                    throw new IllegalStateException("java f");
                }
                return 1;
            });
            Made m = new Made(c1, c2, f, queue.add("w", Map.of()).id(), queue.add("w", Map.of()).id(),
                    queue.add("p", Map.of(), JobOptions.builder().priority(2).build()).id(),
                    queue.add("d", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(1)).build()).id());

            JsonNode cleaned = op(q, obj("op", "clean", "grace", 0, "limit", 0, "type", "completed"));
            assertEquals(Set.of(m.c1, m.c2), Set.copyOf(texts(cleaned)));
            assertEquals(0L, queue.getJobCounts(JobState.COMPLETED).get(JobState.COMPLETED));
            assertNull(queue.getJob(m.c1));
            assertTrue(gone(q, m.c1) && gone(q, m.c2));
            assertEquals(1L, queue.getJobCounts(JobState.FAILED).get(JobState.FAILED), "other states untouched");

            // with a limit, the oldest waiting job goes first
            assertEquals(List.of(m.w1), texts(op(q, obj("op", "clean", "grace", 0, "limit", 1, "type", "wait"))));
            assertEquals(List.of(m.w2), redis().lrange(key(q, "wait"), 0, -1));
            assertNull(queue.getJob(m.w1));

            op(q, obj("op", "drain", "delayed", false));
            Map<JobState, Long> counts = queue.getJobCounts();
            assertEquals(0L, counts.get(JobState.WAITING));
            assertEquals(0L, counts.get(JobState.PRIORITIZED));
            assertEquals(1L, counts.get(JobState.DELAYED), "drain without delayed keeps delayed jobs");
            assertEquals(1L, counts.get(JobState.FAILED));
            assertNull(queue.getJob(m.w1));
            assertTrue(gone(q, m.w1) && gone(q, m.w2) && gone(q, m.p));
            assertEquals(JobState.DELAYED, queue.getJob(m.d).getState());

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals(List.of(2L, 1L), ofType(events, CLEANED, null).stream().map(QueueEvent::count).toList());

            op(q, obj("op", "obliterate", "force", false));
            assertEquals(List.of(), redis().keys(key(q, "*")), "nothing of the queue is left");
            queue.getJobCounts().forEach((state, n) -> assertEquals(0L, n, state.toString()));
            assertNull(queue.getJob(m.f));
            assertNull(queue.getJob(m.d));
            assertFalse(queue.isPaused(), "obliterate took the paused flag with the meta hash");
        }
    }

    @Test
    void bull4jCleansDrainsAndObliteratesAndNodeSeesIt() throws Exception {
        String q = queueName("clean-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            List<JsonNode> made = ops(q, obj("op", "add", "name", "c"), obj("op", "add", "name", "c"),
                    obj("op", "add", "name", "f"));
            nodeWorker(q, obj("finals", 3, "fail", obj("names", List.of("f"), "message", "node f")));
            List<JsonNode> more = ops(q, obj("op", "add", "name", "w"), obj("op", "add", "name", "w"),
                    obj("op", "add", "name", "p", "opts", obj("priority", 2)),
                    obj("op", "add", "name", "d", "opts", obj("delay", 60_000)));
            Made m = new Made(made.get(0).get("id").asText(), made.get(1).get("id").asText(),
                    made.get(2).get("id").asText(), more.get(0).get("id").asText(), more.get(1).get("id").asText(),
                    more.get(2).get("id").asText(), more.get(3).get("id").asText());

            assertEquals(Set.of(m.c1, m.c2), Set.copyOf(queue.clean(Duration.ZERO, 0, JobState.COMPLETED)));
            assertEquals(List.of(m.f), queue.clean(Duration.ZERO, 0, JobState.FAILED));
            assertEquals(List.of(m.p), queue.clean(Duration.ZERO, 0, JobState.PRIORITIZED));
            assertEquals(List.of(m.w1), queue.clean(Duration.ZERO, 1, JobState.WAITING), "the oldest waiting job");
            List<JsonNode> seen = ops(q, obj("op", "counts"), obj("op", "getJob", "id", m.c1),
                    obj("op", "getJob", "id", m.f));
            assertEquals(0, seen.get(0).get("completed").asInt());
            assertEquals(0, seen.get(0).get("failed").asInt());
            assertEquals(1, seen.get(0).get("waiting").asInt(), "other states untouched");
            assertEquals(0, seen.get(0).get("prioritized").asInt());
            assertEquals(1, seen.get(0).get("delayed").asInt());
            assertTrue(seen.get(1).path("missing").asBoolean(), "bullmq finds no cleaned job");
            assertTrue(seen.get(2).path("missing").asBoolean());
            assertTrue(gone(q, m.c1) && gone(q, m.c2) && gone(q, m.f) && gone(q, m.p) && gone(q, m.w1));
            assertEquals(List.of(m.w2), redis().lrange(key(q, "wait"), 0, -1));

            queue.drain(true);
            assertEquals(Map.of("completed", 0L, "failed", 0L, "waiting", 0L, "prioritized", 0L, "delayed", 0L,
                    "active", 0L), nodeCounts(q), "drain with delayed leaves nothing to run");
            assertTrue(gone(q, m.w1) && gone(q, m.w2) && gone(q, m.p) && gone(q, m.d));

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals(List.of(2L, 1L, 1L, 1L), ofType(events, CLEANED, null).stream().map(QueueEvent::count)
                    .toList());

            String late = op(q, obj("op", "add", "name", "late")).get("id").asText();
            queue.obliterate(false);
            assertEquals(List.of(), redis().keys(key(q, "*")), "nothing of the queue is left");
            List<JsonNode> after = ops(q, obj("op", "counts"), obj("op", "getJob", "id", late),
                    obj("op", "isPaused"));
            after.get(0).fields().forEachRemaining(e -> assertEquals(0, e.getValue().asInt(), e.getKey()));
            assertTrue(after.get(1).path("missing").asBoolean());
            assertFalse(after.get(2).asBoolean());
        }
    }
}
