package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** removeOnComplete / removeOnFail: job-level and worker-level retention, by none, count and age. */
class WorkerRemoveOnTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Completes jobs named "ok*", fails the others. */
    private static final Processor BY_NAME = job -> {
        if (job.name().startsWith("ok")) {
            return job.name();
        }
        throw new IllegalStateException("no");
    };

    @Test
    void noneDeletesTheJobAtOnce() throws Exception {
        String q = queueName("rmnone");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job ok = queue.add("ok", Map.of(), JobOptions.builder().removeOnComplete(KeepJobs.none()).build());
            Job bad = queue.add("bad", Map.of(), JobOptions.builder().removeOnFail(true).build());
            assertTrue(json(hash(q, ok.id()).get("opts")).get("removeOnComplete").asBoolean());
            Worker worker = new Worker(q, BY_NAME, workerOptions().build());
            try {
                eventually(WAIT, () -> events(q, "failed", bad.id()).size() == 1
                        && events(q, "completed", ok.id()).size() == 1, "both finished");
            } finally {
                worker.close();
            }
            for (String id : List.of(ok.id(), bad.id())) {
                assertEquals(0, redis().exists(key(q, id), key(q, id + ":lock"), key(q, id + ":logs")), id);
            }
            assertEquals(0, redis().zcard(key(q, "completed")));
            assertEquals(0, redis().zcard(key(q, "failed")));
            assertEquals(1, events(q, "retries-exhausted", bad.id()).size());
        }
    }

    /**
     * BullMQ's other forms: the number 0 removes at once, a negative number keeps all, {count: n} trims like the
     * number n, and each is stored in the form it was given.
     */
    @Test
    void zeroNegativeAndObjectCountsActAsInBullmq() throws Exception {
        String q = queueName("rmforms");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job zero = queue.add("ok-zero", Map.of(), JobOptions.builder().removeOnComplete(KeepJobs.count(0)).build());
            Job negative = queue.add("bad-neg", Map.of(), JobOptions.builder().removeOnFail(KeepJobs.count(-3)).build());
            List<String> objects = new java.util.ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                objects.add(queue.add("ok" + i, Map.of(), JobOptions.builder().removeOnComplete(KeepJobs.of(1, null))
                        .build()).id());
            }
            assertEquals("0", json(hash(q, zero.id()).get("opts")).get("removeOnComplete").toString());
            assertEquals("-3", json(hash(q, negative.id()).get("opts")).get("removeOnFail").toString());
            assertEquals("{\"count\":1}", json(hash(q, objects.get(0)).get("opts")).get("removeOnComplete").toString());
            Worker worker = new Worker(q, BY_NAME, workerOptions().clock(new TickingClock()).build());
            try {
                eventually(WAIT, () -> events(q, "completed", objects.get(2)).size() == 1, "all finished");
            } finally {
                worker.close();
            }
            assertEquals(0, redis().exists(key(q, zero.id())), "count 0 removes the job at once");
            assertEquals(List.of(negative.id()), redis().zrange(key(q, "failed"), 0, -1), "a negative count keeps");
            assertEquals(List.of(objects.get(2)), redis().zrange(key(q, "completed"), 0, -1), "{count: 1} trims");
        }
    }

    @Test
    void countKeepsOnlyTheNewest() throws Exception {
        String q = queueName("rmcount");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 1; i <= 5; i++) {
                queue.add("ok" + i, Map.of(), JobOptions.builder().removeOnComplete(KeepJobs.count(2)).build());
            }
            for (int i = 6; i <= 8; i++) {
                queue.add("bad" + i, Map.of(), JobOptions.builder().removeOnFail(KeepJobs.count(1)).build());
            }
            Worker worker = new Worker(q, BY_NAME, workerOptions().clock(new TickingClock()).build());
            try {
                eventually(WAIT, () -> events(q, "failed", "8").size() == 1, "last job failed");
            } finally {
                worker.close();
            }
            assertEquals(List.of("4", "5"), redis().zrange(key(q, "completed"), 0, -1));
            assertEquals(List.of("8"), redis().zrange(key(q, "failed"), 0, -1));
            for (String gone : List.of("1", "2", "3", "6", "7")) {
                assertEquals(0, redis().exists(key(q, gone)), "job " + gone + " should be deleted");
            }
            for (String kept : List.of("4", "5", "8")) {
                assertEquals(1, redis().exists(key(q, kept)), "job " + kept + " should be kept");
            }
            assertEquals(2, json(hash(q, "4").get("opts")).get("removeOnComplete").asInt());
        }
    }

    @Test
    void ageRemovesJobsOlderThanIt() throws Exception {
        String q = queueName("rmage");
        ManualClock clock = new ManualClock(System.currentTimeMillis());
        JobOptions tenSeconds = JobOptions.builder().removeOnComplete(KeepJobs.age(Duration.ofSeconds(10))).build();
        try (Queue queue = new Queue(q, queueOptions())) {
            Worker worker = new Worker(q, BY_NAME, workerOptions().clock(clock).build());
            try {
                Job first = queue.add("ok1", Map.of(), tenSeconds);
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), first.id()) != null, "first done");
                clock.advance(Duration.ofSeconds(11));
                Job second = queue.add("ok2", Map.of(), tenSeconds);
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), second.id()) != null, "second done");
                assertEquals(0, redis().exists(key(q, first.id())), "11 s old: removed");
                clock.advance(Duration.ofSeconds(5));
                Job third = queue.add("ok3", Map.of(), tenSeconds);
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), third.id()) != null, "third done");
            } finally {
                worker.close();
            }
            assertEquals(List.of("2", "3"), redis().zrange(key(q, "completed"), 0, -1), "5 s old: kept");
            assertEquals(1, redis().exists(key(q, "2")));
            assertEquals(10, json(hash(q, "2").get("opts")).get("removeOnComplete").get("age").asInt());
        }
    }

    @Test
    void workerDefaultsApplyToJobsThatSetNone() throws Exception {
        String q = queueName("rmworker");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job plain = queue.add("ok-plain", Map.of());
            Job keep = queue.add("ok-keep", Map.of(), JobOptions.builder().removeOnComplete(false).build());
            queue.add("bad1", Map.of());
            queue.add("bad2", Map.of());
            Worker worker = new Worker(q, BY_NAME, workerOptions().clock(new TickingClock())
                    .removeOnComplete(KeepJobs.none()).removeOnFail(KeepJobs.count(1)).build());
            try {
                eventually(WAIT, () -> events(q, "failed", "4").size() == 1, "last job failed");
            } finally {
                worker.close();
            }
            assertEquals(0, redis().exists(key(q, plain.id())), "worker default none applied");
            assertEquals(1, redis().exists(key(q, keep.id())), "the job's own false wins");
            assertEquals(List.of(keep.id()), redis().zrange(key(q, "completed"), 0, -1));
            assertEquals(List.of("4"), redis().zrange(key(q, "failed"), 0, -1));
            assertEquals(Set.of(), Set.copyOf(redis().keys(key(q, "3*"))), "older failure trimmed with its keys");
        }
    }
}
