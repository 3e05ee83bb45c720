package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Retries: attempts, what each failed attempt stores, stack trace limits, unrecoverable failures. */
class WorkerRetryTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static Processor failing() {
        return job -> {
            throw new IllegalStateException("boom " + job.attemptsMade());
        };
    }

    @Test
    void failureIsRetriedAtOnceUntilAttemptsAreUsed() throws Exception {
        String q = queueName("retry");
        Recorder rec = new Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(3).build());
            Worker worker = new Worker(q, failing(), workerOptions().build(), rec); // rec sees every attempt
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), job.id()) != null, "job failed");
            } finally {
                worker.close();
            }
            Map<String, String> h = hash(q, job.id());
            assertEquals("boom 2", h.get("failedReason"), "plain text, the last attempt's message");
            assertEquals("3", h.get("atm"));
            assertEquals("3", h.get("ats"));
            JsonNode stack = json(h.get("stacktrace"));
            assertEquals(3, stack.size(), "one entry per failed attempt");
            assertTrue(stack.get(0).asText().contains("boom 0"));
            assertTrue(stack.get(2).asText().contains("boom 2"));
            assertEquals(2, events(q, "waiting", job.id()).stream().filter(e -> "active".equals(e.get("prev")))
                    .count(), "each retry goes back to wait");
            List<Map<String, String>> failed = events(q, "failed", job.id());
            assertEquals(1, failed.size(), "only the final failure emits failed");
            assertEquals("boom 2", failed.get(0).get("failedReason"));
            assertEquals("active", failed.get(0).get("prev"));
            List<Map<String, String>> exhausted = events(q, "retries-exhausted", job.id());
            assertEquals(1, exhausted.size());
            assertEquals("3", exhausted.get(0).get("attemptsMade"));
            eventually(WAIT, () -> rec.count("failed") == 3, "a failed callback per attempt");
        }
    }

    /** An exception whose message cannot be read: getMessage (and so toString and printStackTrace) throws. */
    static final class UnprintableException extends RuntimeException {
        @Override
        public String getMessage() {
            throw new NullPointerException("a message built from a null field");
        }
    }

    /**
     * A failure is written even when the exception cannot be printed, or the stack traces stored before cannot be
     * read: before, the outcome could not be recorded, the job stayed active under a lock no one renewed, and the
     * stalled check ran it again (a single-attempt job ran twice, its real error lost).
     */
    @Test
    void aFailureIsWrittenWhenTheExceptionOrTheStoredTracesCannotBeRead() throws Exception {
        String q = queueName("retry-unprintable");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job unprintable = queue.add("u", Map.of(), JobOptions.builder().attempts(1).build());
            Job badTraces = queue.add("b", Map.of(), JobOptions.builder().attempts(1).build());
            redis().hset(key(q, badTraces.id()), "stacktrace", "not a JSON list");
            try (Worker worker = new Worker(q, job -> {
                runs.incrementAndGet();
                if (job.id().equals(unprintable.id())) {
                    throw new UnprintableException();
                }
                throw new IllegalStateException("plain");
            }, workerOptions().build())) {
                eventually(WAIT, () -> redis().zcard(key(q, "failed")) == 2, "both failed");
            }
            Map<String, String> u = hash(q, unprintable.id());
            assertEquals(UnprintableException.class.getName(), u.get("failedReason"), "the class name instead");
            JsonNode uStack = json(u.get("stacktrace"));
            assertEquals(1, uStack.size());
            assertTrue(uStack.get(0).asText().startsWith(UnprintableException.class.getName()), uStack.toString());
            assertTrue(uStack.get(0).asText().contains("\tat "), "its frames: " + uStack);
            JsonNode bStack = json(hash(q, badTraces.id()).get("stacktrace"));
            assertEquals(1, bStack.size(), "the unreadable traces replaced by this failure's, as BullMQ's getTraces");
            assertTrue(bStack.get(0).asText().contains("plain"));
            assertEquals(2, runs.get(), "each job ran once");
        }
    }

    /**
     * maxStartedAttempts, as BullMQ's worker option: a job started that many times is not retried, and one started
     * more often (here: stalled twice before) is failed without running, "job started more than allowable limit".
     */
    @Test
    void maxStartedAttemptsEndsRetriesAndFailsAJobStartedTooOften() throws Exception {
        String q = queueName("retry-max-started");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job retried = queue.add("r", Map.of(), JobOptions.builder().attempts(5).build());
            try (Worker worker = new Worker(q, job -> {
                runs.incrementAndGet();
                throw new IllegalStateException("boom " + job.attemptsMade());
            }, workerOptions().maxStartedAttempts(2).build())) {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), retried.id()) != null, "failed");
                Map<String, String> h = hash(q, retried.id());
                assertEquals("boom 1", h.get("failedReason"), "two starts, then no retry though attempts remain");
                assertEquals("2", h.get("ats"));
                assertEquals(2, runs.get());

                worker.pause();
                Job tooOften = queue.add("t", Map.of(), JobOptions.builder().attempts(5).build());
                redis().hset(key(q, tooOften.id()), "ats", "2"); // started twice before (stalls)
                worker.resume();
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), tooOften.id()) != null, "failed");
                assertEquals("job started more than allowable limit", hash(q, tooOften.id()).get("failedReason"));
                assertEquals(2, runs.get(), "not run");
            }
        }
        assertThrows(ValidationException.class, () -> WorkerOptions.builder().maxStartedAttempts(-1));
    }

    @Test
    void listenersSeeTheJobAsTheOutcomeLeftIt() throws Exception {
        String q = queueName("snapshot");
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("bad", Map.of(), JobOptions.builder().attempts(2).build());
            Job good = queue.add("good", Map.of());
            Worker worker = new Worker(q, j -> {
                if (j.name().equals("bad")) {
                    throw new IllegalStateException("boom " + j.attemptsMade());
                }
                return 7;
            }, workerOptions().build(), new WorkerListener() { // registered before the worker starts
                @Override
                public void onFailed(Job job, Throwable error) {
                    seen.add("failed atm=" + job.attemptsMade() + " reason=" + job.failedReason()
                            + " stack=" + job.stacktrace().size());
                }

                @Override
                public void onCompleted(Job job, Object result) {
                    seen.add("completed atm=" + job.attemptsMade() + " rv=" + job.returnValueJson()
                            + " finished=" + (job.finishedOn() != null));
                }
            });
            try {
                eventually(WAIT, () -> seen.size() == 3, "three outcomes");
            } finally {
                worker.close();
            }
            // the retried job goes to the back of wait, behind "good"
            assertEquals(List.of("failed atm=1 reason=boom 0 stack=1", "completed atm=1 rv=7 finished=true",
                    "failed atm=2 reason=boom 1 stack=2"), seen);
            assertEquals("1", hash(q, good.id()).get("atm"));
        }
    }

    @Test
    void stackTraceLimitKeepsTheNewest() throws Exception {
        String q = queueName("stl");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job two = queue.add("two", Map.of(), JobOptions.builder().attempts(3).stackTraceLimit(2).build());
            Job none = queue.add("none", Map.of(), JobOptions.builder().attempts(2).stackTraceLimit(0).build());
            Worker worker = new Worker(q, failing(), workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "failed")) == 2, "both failed");
            } finally {
                worker.close();
            }
            JsonNode stack = json(hash(q, two.id()).get("stacktrace"));
            assertEquals(2, stack.size());
            assertTrue(stack.get(0).asText().contains("boom 1"));
            assertTrue(stack.get(1).asText().contains("boom 2"));
            assertEquals("[]", hash(q, none.id()).get("stacktrace"));
        }
    }

    @Test
    void unrecoverableFailsAtOnce() throws Exception {
        String q = queueName("unrec");
        AtomicInteger runs = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of(), JobOptions.builder().attempts(5)
                    .backoff(Backoff.fixed(Duration.ofMillis(10))).build());
            Worker worker = new Worker(q, j -> {
                runs.incrementAndGet();
                throw new UnrecoverableException("bad input");
            }, workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), job.id()) != null, "failed");
            } finally {
                worker.close();
            }
            assertEquals(1, runs.get());
            Map<String, String> h = hash(q, job.id());
            assertEquals("bad input", h.get("failedReason"));
            assertEquals("1", h.get("atm"));
            assertEquals(1, json(h.get("stacktrace")).size());
            assertTrue(events(q, "delayed", job.id()).isEmpty());
        }
    }
}
