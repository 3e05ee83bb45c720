package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Backoff;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueEvent;
import io.bull4j.UnrecoverableException;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Node's {@code UnrecoverableError} and bull4j's {@link UnrecoverableException} fail a job at once although
 * attempts remain, and the other side reads the failure.
 */
class InteropWorkerUnrecoverableTest {
    private static final List<String> FAILED_AT_ONCE = List.of("added:u", "waiting:u", "active:u", "failed:u",
            "drained");

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** Failed at its first attempt: in failed, never delayed, no retries-exhausted (1 of 3 attempts made). */
    private static void assertFailedAtOnce(String q, String id, String reason) {
        assertNotNull(redis().zscore(key(q, "failed"), id));
        assertEquals(0, redis().zcard(key(q, "delayed")));
        Map<String, String> h = hash(q, id);
        assertEquals("1", h.get("atm"));
        assertEquals("1", h.get("ats"));
        assertEquals(reason, h.get("failedReason"));
        assertNotNull(h.get("finishedOn"));
        assertEquals(1, events(q, "failed", id).size());
        assertTrue(events(q, "delayed", id).isEmpty());
        assertTrue(events(q, "retries-exhausted", id).isEmpty(), "bullmq emits it only once attempts are used up");
    }

    @Test
    void nodeUnrecoverableErrorFailsAtOnceAndBull4jReadsIt() throws Exception {
        String q = queueName("unrec-n2j");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("u", Map.of(), JobOptions.builder().attempts(3)
                    .backoff(Backoff.fixed(Duration.ofMillis(100))).build()).id();
            List<JsonNode> lines = nodeWorker(q, obj("maxStarts", 1,
                    "fail", obj("message", "node fatal", "unrecoverable", true)));
            assertTrue(line(lines, "failed", id).get("final").asBoolean());
            assertFailedAtOnce(q, id, "node fatal");

            Job job = queue.getJob(id);
            assertEquals(JobState.FAILED, job.getState());
            assertEquals("node fatal", job.failedReason());
            assertEquals(1, job.attemptsMade());
            assertEquals(1, job.stacktrace().size());
            assertTrue(job.stacktrace().get(0).startsWith("UnrecoverableError: node fatal\n"), job.stacktrace().get(0));
            assertSameJob(op(q, obj("op", "getJob", "id", id)), job);

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals("node fatal", ofType(events, FAILED, id).get(0).failedReason());
            assertEquals(FAILED_AT_ONCE, trail(q));
        }
    }

    @Test
    void bull4jUnrecoverableExceptionFailsAtOnceAndNodeReadsIt() throws Exception {
        String q = queueName("unrec-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = op(q, obj("op", "add", "name", "u", "data", obj(), "opts",
                    obj("attempts", 3, "backoff", obj("type", "fixed", "delay", 100)))).get("id").asText();
            JavaAttempt attempt = JavaAttempt.run(q, workerOptions().build(), job -> {
                throw new UnrecoverableException("java fatal");
            });
            assertNotNull(await(attempt.finished).finishedOn());
            assertFailedAtOnce(q, id, "java fatal");

            JsonNode theirs = op(q, obj("op", "getJob", "id", id));
            assertEquals("failed", theirs.get("state").asText());
            assertEquals("java fatal", theirs.get("failedReason").asText());
            assertEquals(1, theirs.get("attemptsMade").asInt());
            List<String> stack = texts(theirs.get("stacktrace"));
            assertEquals(1, stack.size());
            assertTrue(stack.get(0).startsWith("io.bull4j.UnrecoverableException: java fatal"), stack.get(0));
            assertSameJob(theirs, queue.getJob(id));

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals("java fatal", ofType(events, FAILED, id).get(0).failedReason());
            assertEquals(FAILED_AT_ONCE, trail(q));
        }
    }
}
