package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Backoff;
import io.bull4j.Job;
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

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Retries across implementations: one side fails an attempt, the job waits out its backoff (fixed or
 * exponential) in delayed, and the other side runs the next attempt and reads the failure left by the first.
 */
class InteropWorkerRetryTest {
    /** How late a retry may be scheduled after the throw on a loaded machine (Redis round trips, GC). */
    private static final long SLACK_MS = 2000;

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    private static JobOptions retries(Backoff backoff) {
        return JobOptions.builder().attempts(3).backoff(backoff).build();
    }

    /** The events of a job retried once after a backoff, then completed: the same whichever side did what. */
    private static final List<String> RETRIED_ONCE = List.of("added:r", "waiting:r", "active:r", "delayed:r",
            "waiting:r", "active:r", "completed:r", "drained");
    /** The events of a job that failed all its 3 attempts, with a backoff between them. */
    private static final List<String> EXHAUSTED = List.of("added:r", "waiting:r", "active:r", "delayed:r", "waiting:r",
            "active:r", "delayed:r", "waiting:r", "active:r", "failed:r", "retries-exhausted:r", "drained");

    /** The job is delayed until {@code threwAt + delayMs} (within the slack), with the delay field and event. */
    private static long assertBackedOff(String q, String id, long threwAt, long delayMs, int attemptsMade) {
        long due = dueAt(q, id);
        assertTrue(due >= threwAt + delayMs && due <= threwAt + delayMs + SLACK_MS,
                "due " + due + " is " + delayMs + " ms after the throw at " + threwAt);
        Map<String, String> h = hash(q, id);
        assertEquals(Long.toString(delayMs), h.get("delay"));
        assertEquals(Integer.toString(attemptsMade), h.get("atm"));
        assertEquals(Integer.toString(attemptsMade), h.get("ats"));
        assertNull(h.get("finishedOn"));
        assertEquals(Long.toString(due), events(q, "delayed", id).get(attemptsMade - 1).get("delay"));
        return due;
    }

    @Test
    void nodeFailsWithFixedBackoffAndBull4jCompletesTheRetry() throws Exception {
        String q = queueName("retry-fixed-n2j");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("r", Map.of("n", 1), retries(Backoff.fixed(Duration.ofMillis(600)))).id();
            List<JsonNode> lines = nodeWorker(q, obj("maxStarts", 1, "fail", obj("message", "node boom")));
            JsonNode failed = line(lines, "failed", id);
            assertFalse(failed.get("final").asBoolean(), "attempt 1 of 3 is retried");
            long due = assertBackedOff(q, id, line(lines, "threw", id).get("at").asLong(), 600, 1);
            assertTrue(events(q, "failed", id).isEmpty(), "a retried attempt writes no failed event");

            Job delayed = queue.getJob(id);
            assertEquals(JobState.DELAYED, delayed.getState());
            assertEquals("node boom", delayed.failedReason());
            assertEquals(1, delayed.stacktrace().size());
            assertTrue(delayed.stacktrace().get(0).startsWith("Error: node boom\n    at "), delayed.stacktrace().get(0));
            assertEquals(texts(failed.at("/job/stacktrace")), delayed.stacktrace());
            assertEquals(Duration.ofMillis(600), delayed.delay());
            assertSameJob(op(q, obj("op", "getJob", "id", id)), delayed);

            JavaAttempt second = JavaAttempt.run(q, workerOptions().build(), job -> "java ok");
            Job started = await(second.started);
            assertEquals(1, started.attemptsMade());
            assertTrue(started.processedOn().toEpochMilli() >= due, "attempt 2 waited out the backoff");

            Job done = queue.getJob(id);
            assertEquals(JobState.COMPLETED, done.getState());
            assertEquals(2, done.attemptsMade());
            assertEquals(2, done.attemptsStarted());
            assertEquals("java ok", done.returnValue(String.class));
            assertEquals("node boom", done.failedReason(), "completion keeps the last failure, as bullmq does");
            JsonNode theirs = op(q, obj("op", "getJob", "id", id));
            assertEquals("completed", theirs.get("state").asText());
            assertSameJob(theirs, done);

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals(due, ofType(events, DELAYED, id).get(0).delay().toEpochMilli());
            assertEquals(JobState.DELAYED, ofType(events, WAITING, id).get(1).prev(), "promoted after the backoff");
            assertEquals("\"java ok\"", ofType(events, COMPLETED, id).get(0).returnValueJson());
            assertEquals(RETRIED_ONCE, trail(q));
        }
    }

    @Test
    void bull4jFailsWithFixedBackoffAndNodeCompletesTheRetry() throws Exception {
        String q = queueName("retry-fixed-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = op(q, obj("op", "add", "name", "r", "data", obj("n", 2), "opts",
                    obj("attempts", 3, "backoff", obj("type", "fixed", "delay", 600)))).get("id").asText();
            JavaAttempt first = JavaAttempt.run(q, workerOptions().build(), job -> {
                throw new IllegalStateException("java boom");
            });
            long due = assertBackedOff(q, id, first.threwAt, 600, 1);

            JsonNode delayed = op(q, obj("op", "getJob", "id", id));
            assertEquals("delayed", delayed.get("state").asText());
            assertEquals("java boom", delayed.get("failedReason").asText());
            assertEquals(1, delayed.get("attemptsMade").asInt());
            assertEquals(600, delayed.get("delay").asInt());
            List<String> stack = texts(delayed.get("stacktrace"));
            assertEquals(1, stack.size());
            assertTrue(stack.get(0).startsWith("java.lang.IllegalStateException: java boom"), stack.get(0));
            assertSameJob(delayed, queue.getJob(id));

            List<JsonNode> lines = nodeWorker(q, obj("maxStarts", 1, "returnvalue", obj("by", "node")));
            JsonNode start = line(lines, "start", id);
            assertEquals(1, start.at("/job/attemptsMade").asInt());
            assertEquals("java boom", start.at("/job/failedReason").asText(), "the Node processor sees Java's failure");
            assertEquals(stack, texts(start.at("/job/stacktrace")));
            assertTrue(start.get("at").asLong() >= due, "attempt 2 waited out the backoff");
            assertEquals(2, line(lines, "completed", id).at("/job/attemptsMade").asInt());

            Job done = queue.getJob(id);
            assertEquals(JobState.COMPLETED, done.getState());
            assertEquals(Map.of("by", "node"), done.returnValue(Map.class));
            assertEquals(2, done.attemptsMade());
            assertEquals(2, done.attemptsStarted());
            assertSameJob(op(q, obj("op", "getJob", "id", id)), done);

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals(due, ofType(events, DELAYED, id).get(0).delay().toEpochMilli());
            assertEquals("{\"by\":\"node\"}", ofType(events, COMPLETED, id).get(0).returnValueJson());
            assertEquals(RETRIED_ONCE, trail(q));
        }
    }

    @Test
    void exponentialBackoffAcrossSidesUntilNodeExhaustsTheAttempts() throws Exception {
        String q = queueName("retry-exp-n");
        try (Queue queue = new Queue(q, queueOptions())) {
            // stackTraceLimit 2: each side trims the traces to the last two
            String id = queue.add("r", Map.of(), retries(Backoff.exponential(Duration.ofMillis(300))).toBuilder()
                    .stackTraceLimit(2).build()).id();
            List<JsonNode> one = nodeWorker(q, obj("maxStarts", 1, "fail", obj("message", "node boom 1")));
            long due1 = assertBackedOff(q, id, line(one, "threw", id).get("at").asLong(), 300, 1);

            JavaAttempt two = JavaAttempt.run(q, workerOptions().build(), job -> {
                throw new IllegalStateException("java boom 2");
            });
            assertTrue(await(two.started).processedOn().toEpochMilli() >= due1);
            long due2 = assertBackedOff(q, id, two.threwAt, 600, 2);

            List<JsonNode> three = nodeWorker(q, obj("maxStarts", 1, "fail", obj("message", "node boom 3")));
            assertTrue(line(three, "start", id).get("at").asLong() >= due2);
            JsonNode failed = line(three, "failed", id);
            assertTrue(failed.get("final").asBoolean(), "attempt 3 of 3 fails for good");
            assertEquals(3, failed.at("/job/attemptsMade").asInt());

            assertNotNull(redis().zscore(key(q, "failed"), id));
            assertNull(redis().zscore(key(q, "delayed"), id));
            Job job = queue.getJob(id);
            assertEquals(JobState.FAILED, job.getState());
            assertEquals("node boom 3", job.failedReason());
            assertEquals(3, job.attemptsMade());
            assertEquals(3, job.attemptsStarted());
            List<String> stack = job.stacktrace();
            assertEquals(2, stack.size(), "one trace per failed attempt, oldest first, the last stackTraceLimit");
            assertTrue(stack.get(0).startsWith("java.lang.IllegalStateException: java boom 2"), stack.get(0));
            assertTrue(stack.get(1).startsWith("Error: node boom 3\n"), stack.get(1));
            assertSameJob(op(q, obj("op", "getJob", "id", id)), job);

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals(List.of(due1, due2), ofType(events, DELAYED, id).stream()
                    .map(e -> e.delay().toEpochMilli()).toList());
            assertEquals("node boom 3", ofType(events, FAILED, id).get(0).failedReason());
            assertEquals(1, ofType(events, FAILED, id).size(), "only the final failure is an event");
            assertEquals(3, ofType(events, RETRIES_EXHAUSTED, id).get(0).attemptsMade());
            assertEquals(EXHAUSTED, trail(q));
        }
    }

    @Test
    void exponentialBackoffAcrossSidesUntilBull4jExhaustsTheAttempts() throws Exception {
        String q = queueName("retry-exp-j");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = op(q, obj("op", "add", "name", "r", "data", obj(), "opts",
                    obj("attempts", 3, "backoff", obj("type", "exponential", "delay", 300), "stackTraceLimit", 2)))
                    .get("id").asText();
            JavaAttempt one = JavaAttempt.run(q, workerOptions().build(), job -> {
                throw new IllegalStateException("java boom 1");
            });
            long due1 = assertBackedOff(q, id, one.threwAt, 300, 1);

            List<JsonNode> two = nodeWorker(q, obj("maxStarts", 1, "fail", obj("message", "node boom 2")));
            assertTrue(line(two, "start", id).get("at").asLong() >= due1);
            long due2 = assertBackedOff(q, id, line(two, "threw", id).get("at").asLong(), 600, 2);

            JavaAttempt three = JavaAttempt.run(q, workerOptions().build(), job -> {
                throw new IllegalStateException("java boom 3");
            });
            assertTrue(await(three.started).processedOn().toEpochMilli() >= due2);
            assertEquals(3, await(three.finished).attemptsMade());

            assertNotNull(redis().zscore(key(q, "failed"), id));
            JsonNode theirs = op(q, obj("op", "getJob", "id", id));
            assertEquals("failed", theirs.get("state").asText());
            assertEquals("java boom 3", theirs.get("failedReason").asText());
            assertEquals(3, theirs.get("attemptsMade").asInt());
            assertEquals(3, theirs.get("attemptsStarted").asInt());
            List<String> stack = texts(theirs.get("stacktrace"));
            assertEquals(2, stack.size(), "the last stackTraceLimit traces");
            assertTrue(stack.get(0).startsWith("Error: node boom 2\n"), stack.get(0));
            assertTrue(stack.get(1).startsWith("java.lang.IllegalStateException: java boom 3"), stack.get(1));
            assertSameJob(theirs, queue.getJob(id));

            List<QueueEvent> events = assertReadersAgree(q);
            assertEquals(List.of(due1, due2), ofType(events, DELAYED, id).stream()
                    .map(e -> e.delay().toEpochMilli()).toList());
            assertEquals("java boom 3", ofType(events, FAILED, id).get(0).failedReason());
            assertEquals(3, ofType(events, RETRIES_EXHAUSTED, id).get(0).attemptsMade());
            assertEquals(EXHAUSTED, trail(q));
        }
    }

    @Test
    void withoutBackoffEachSideRetriesAtOnceForTheOther() throws Exception {
        String q = queueName("retry-now");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = queue.add("r", Map.of(), JobOptions.builder().attempts(3).build()).id();
            nodeWorker(q, obj("maxStarts", 1, "fail", obj("message", "node first")));
            assertEquals(List.of(id), redis().lrange(key(q, "wait"), 0, -1), "bullmq put it straight back");
            assertEquals("1", hash(q, id).get("atm"));
            assertEquals("node first", queue.getJob(id).failedReason());

            JavaAttempt second = JavaAttempt.run(q, workerOptions().build(), job -> {
                throw new IllegalStateException("java second");
            });
            assertEquals(1, await(second.started).attemptsMade());
            assertEquals(List.of(id), redis().lrange(key(q, "wait"), 0, -1), "bull4j put it straight back");
            JsonNode waiting = op(q, obj("op", "getJob", "id", id));
            assertEquals("waiting", waiting.get("state").asText());
            assertEquals("java second", waiting.get("failedReason").asText());
            assertEquals(2, waiting.get("attemptsMade").asInt());
            assertEquals(2, texts(waiting.get("stacktrace")).size());

            List<JsonNode> third = nodeWorker(q, obj("maxStarts", 1, "returnvalue", 3));
            assertEquals(3, line(third, "completed", id).at("/job/attemptsMade").asInt());
            assertSameJob(op(q, obj("op", "getJob", "id", id)), queue.getJob(id));
            assertReadersAgree(q);
            assertEquals(List.of("added:r", "waiting:r", "active:r", "waiting:r", "active:r", "waiting:r", "active:r",
                    "completed:r", "drained"), trail(q));
            assertEquals(List.of("active", "active"), events(q, "waiting", id).stream().skip(1)
                    .map(e -> e.get("prev")).toList(), "each retry comes back from active");
        }
    }
}
