package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Dead letters: a job that fails for good is copied to the worker's dead-letter queue in the same script as the
 * failure, with where it came from and why; the source queue stays as BullMQ leaves it; a replay moves it back.
 */
class DeadLetterTest {
    private static String key(String q, String suffix) {
        return "bull:" + q + ":" + suffix;
    }

    private static Map<String, Job> lettersBySource(Queue dlq) {
        return dlq.getJobs(JobState.WAITING).stream()
                .collect(Collectors.toMap(j -> j.deadLetter().jobId(), j -> j));
    }

    @Test
    void aFinalFailureAddsADeadLetterAndRetriesOrCompletionsDoNot() throws Exception {
        String q = queueName("dlq-src");
        String dead = q + "-dead";
        long before = System.currentTimeMillis();
        try (Queue queue = new Queue(q, queueOptions());
             Queue dlq = new Queue(dead, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (job.name().equals("ok")) {
                     return "fine";
                 }
                 if (job.name().equals("unrecoverable")) {
                     throw new UnrecoverableException("gave up at once");
                 }
                 throw new IllegalStateException("bad input " + job.id());
             }, workerOptions().deadLetterQueue(dead).build())) {
            queue.add("retried", Map.of("n", 1), JobOptions.builder().jobId("r").attempts(2).build());
            queue.add("unrecoverable", Map.of("n", 2), JobOptions.builder().jobId("u").attempts(5).build());
            queue.add("ok", Map.of("n", 3), JobOptions.builder().jobId("ok").build());
            eventually(Duration.ofSeconds(20), () -> redis().zcard(key(q, "failed")) == 2
                    && redis().zcard(key(q, "completed")) == 1, "two failed, one completed");

            Map<String, Job> letters = lettersBySource(dlq);
            assertEquals(2, letters.size(), letters.toString());
            Job r = letters.get("r");
            assertEquals("retried", r.name());
            assertEquals(Map.of("n", 1), r.data());
            DeadLetter record = r.deadLetter();
            assertEquals(q, record.queue());
            assertEquals("bad input r", record.failedReason());
            assertEquals(2, record.attemptsMade());
            assertEquals(2, record.stacktrace().size());
            assertTrue(record.stacktrace().get(1).startsWith("java.lang.IllegalStateException: bad input r"));
            assertFalse(record.failedOn().isBefore(Instant.ofEpochMilli(before)));
            DeadLetter u = letters.get("u").deadLetter();
            assertEquals("gave up at once", u.failedReason());
            assertEquals(1, u.attemptsMade());
            assertEquals(JobState.WAITING, letters.get("u").getState());

            // the source queue is as BullMQ leaves it: failed jobs with their own fields only
            Job failed = queue.getJob("r");
            assertEquals(JobState.FAILED, failed.getState());
            assertNull(failed.deadLetter());
            assertFalse(redis().hgetall(key(q, "r")).containsKey("deadLetter"));
            List<String> events = redis().xrange(key(dead, "events"), io.lettuce.core.Range.create("-", "+"))
                    .stream().map(m -> m.getBody().get("event")).collect(Collectors.toList());
            assertEquals(List.of("added", "waiting", "added", "waiting"), events);
        }
    }

    @Test
    void removeOnFailStillLeavesTheDeadLetterAndManualFailuresWriteOneToo() throws Exception {
        String q = queueName("dlq-remove");
        String dead = q + "-dead";
        try (Queue queue = new Queue(q, queueOptions());
             Queue dlq = new Queue(dead, queueOptions());
             Worker manual = new Worker(q, workerOptions().deadLetterQueue(dead).build())) {
            queue.add("gone", Map.of("keep", "me"), JobOptions.builder().jobId("g").removeOnFail(true).build());
            Job job = manual.getNextJob("t:1", false);
            job.moveToFailed(new RuntimeException("manual failure"), "t:1", false);
            assertNull(queue.getJob("g"), "removed on fail");
            Job letter = lettersBySource(dlq).get("g");
            assertEquals(Map.of("keep", "me"), letter.data());
            assertEquals("manual failure", letter.deadLetter().failedReason());
        }
    }

    @Test
    void aReplayRetriesTheFailedJobOrAddsItAgainAndRemovesTheDeadLetter() throws Exception {
        String q = queueName("dlq-replay");
        String dead = q + "-dead";
        AtomicBoolean broken = new AtomicBoolean(true);
        CompletableFuture<Job> replayedRan = new CompletableFuture<>();
        CompletableFuture<Job> readdedRan = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Queue dlq = new Queue(dead, queueOptions());
             Worker worker = new Worker(q, job -> {
                 if (broken.get()) {
                     throw new IllegalStateException("downstream down");
                 }
                 (job.id().equals("kept") ? replayedRan : readdedRan).complete(job);
                 return "ok now";
             }, workerOptions().deadLetterQueue(dead).build())) {
            queue.add("kept", Map.of("k", 1), JobOptions.builder().jobId("kept").attempts(2).build());
            queue.add("removed", Map.of("k", 2), JobOptions.builder().jobId("removed").removeOnFail(true).build());
            eventually(Duration.ofSeconds(20), () -> lettersBySource(dlq).size() == 2, "two dead letters");
            Map<String, Job> letters = lettersBySource(dlq);
            broken.set(false);

            Job kept = dlq.replayDeadLetter(letters.get("kept").id());
            assertEquals("kept", kept.id());
            assertEquals(0, await(replayedRan).attemptsMade(), "retried with its attempts reset");
            assertNull(dlq.getJob(letters.get("kept").id()), "the dead letter is removed");

            Job readded = dlq.replayDeadLetter(letters.get("removed").id());
            assertEquals("removed", readded.id(), "added again with its options (its custom id)");
            assertEquals(Map.of("k", 2), await(readdedRan).data());
            assertEquals(0, dlq.getJobs(JobState.WAITING).size());
            eventually(Duration.ofSeconds(20), () -> queue.getJob("kept").getState() == JobState.COMPLETED,
                    "kept completed");

            JobException notALetter = assertThrows(JobException.class, () -> queue.replayDeadLetter("kept"));
            assertEquals(JobException.Reason.BAD_DATA, notALetter.reason());
            assertEquals(JobException.Reason.JOB_NOT_FOUND,
                    assertThrows(JobException.class, () -> dlq.replayDeadLetter("nope")).reason());
        }
    }

    @Test
    void aDeadLetterAWorkerHoldsIsNotReplayed() throws Exception {
        String q = queueName("dlq-held");
        String dead = q + "-dead";
        try (Queue queue = new Queue(q, queueOptions());
             Queue dlq = new Queue(dead, queueOptions());
             Worker worker = new Worker(q, job -> {
                 throw new IllegalStateException("down");
             }, workerOptions().deadLetterQueue(dead).build())) {
            queue.add("j", Map.of(), JobOptions.builder().jobId("j").build());
            eventually(Duration.ofSeconds(20), () -> lettersBySource(dlq).size() == 1, "a dead letter");
            String letter = lettersBySource(dlq).get("j").id();
            redis().set(key(dead, letter + ":lock"), "a-dead-letter-worker"); // taken by its worker

            assertEquals(JobException.Reason.JOB_LOCKED,
                    assertThrows(JobException.class, () -> dlq.replayDeadLetter(letter)).reason());
            assertEquals(JobState.FAILED, queue.getJob("j").getState(), "nothing replayed");
            assertNotNull(dlq.getJob(letter), "the letter stays");
        }
    }

    @Test
    void theDeadLetterQueueIsValidated() {
        assertEquals("deadLetterQueue", assertThrows(ValidationException.class,
                () -> WorkerOptions.builder().deadLetterQueue(" ")).field());
        assertEquals("deadLetterQueue", assertThrows(ValidationException.class,
                () -> WorkerOptions.builder().deadLetterQueue("a:b")).field());
        String q = queueName("dlq-self");
        assertEquals("deadLetterQueue", assertThrows(ValidationException.class,
                () -> new Worker(q, job -> null, workerOptions().deadLetterQueue(q).build())).field());
        WorkerOptions o = WorkerOptions.builder().deadLetterQueue("dead").build();
        assertEquals("dead", o.toBuilder().build().deadLetterQueue());
        assertNotEquals(WorkerOptions.DEFAULTS, o);
    }
}
