package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.QueueAdminTest.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** {@link Queue#clean}, {@link Queue#retryJobs} and {@link Queue#promoteJobs}, checked on Redis state and events. */
class QueueAdminCleanTest {

    /** The same queue seen from a clock {@code ahead} of now, so that fresh jobs look old to clean. */
    private static Queue later(String q, Duration ahead) {
        return new Queue(q, queueOptions().toBuilder().clock(Clock.offset(Clock.systemUTC(), ahead)).build());
    }

    private static JobOptions createdAt(Instant t) {
        return JobOptions.builder().timestamp(t).build();
    }

    private static List<String> cleanedCounts(String q) {
        return events(q, "cleaned").stream().map(e -> e.get("count")).toList();
    }

    // ---- clean ----

    @Test
    void cleanRemovesFinishedJobsOlderThanTheGrace() throws Exception {
        String q = queueName("cleanfin");
        try (Queue queue = new Queue(q, queueOptions()); Queue inAnHour = later(q, Duration.ofHours(1))) {
            fill(queue);
            assertEquals(List.of(), queue.clean(Duration.ofMinutes(30), 0, JobState.COMPLETED));
            assertEquals(List.of(), inAnHour.clean(Duration.ofHours(2), 0, JobState.FAILED));
            assertEquals(Set.of("1", "2"), Set.copyOf(inAnHour.clean(Duration.ofMinutes(30), 0, JobState.COMPLETED)));
            assertEquals(List.of("3"), inAnHour.clean(Duration.ofMinutes(30), 0, JobState.FAILED));

            assertEquals(0L, redis().exists(key(q, "completed"), key(q, "failed"), key(q, "1"), key(q, "2"),
                    key(q, "3")));
            // other states untouched
            assertEquals(List.of("5", "4"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(2L, redis().zcard(key(q, "delayed")));
            // one "cleaned" per call, with the count, even when 0 (as BullMQ)
            assertEquals(List.of("0", "0", "2", "1"), cleanedCounts(q));
            assertEquals(event("event", "cleaned", "count", "2"), events(q, "cleaned").get(2));
        }
    }

    /** A limit above one call's page (10,000): the last call asks only for what is left of it. */
    @Test
    void cleanNeverRemovesMoreThanTheLimitOverSeveralCalls() throws Exception {
        String q = queueName("cleanpages");
        try (Queue queue = new Queue(q, queueOptions()); Queue inAnHour = later(q, Duration.ofHours(1))) {
            List<BulkJob> jobs = new ArrayList<>();
            for (int i = 0; i < 10_005; i++) {
                jobs.add(BulkJob.of("j", Map.of()));
            }
            queue.addBulk(jobs);
            assertEquals(10_001, inAnHour.clean(Duration.ofMinutes(30), 10_001, JobState.WAITING).size());
            assertEquals(4L, redis().llen(key(q, "wait")));
        }
    }

    @Test
    void cleanHonoursTheLimitOldestFirst() throws Exception {
        String q = queueName("cleanlimit");
        try (Queue queue = new Queue(q, queueOptions()); Queue inAnHour = later(q, Duration.ofHours(1))) {
            for (int i = 0; i < 5; i++) {
                queue.add("good", Map.of());
            }
            finishAll(q, 5);
            List<String> byAge = redis().zrange(key(q, "completed"), 0, -1);
            assertEquals(byAge.subList(0, 2), inAnHour.clean(Duration.ZERO, 2, JobState.COMPLETED));
            assertEquals(byAge.subList(2, 5), redis().zrange(key(q, "completed"), 0, -1));

            // lists: with a limit only the tail (the oldest jobs) is looked at
            for (int i = 0; i < 4; i++) {
                queue.add("w", Map.of());
            }
            assertEquals(List.of("6", "7"), sorted(inAnHour.clean(Duration.ZERO, 2, JobState.WAITING)));
            assertEquals(List.of("9", "8"), redis().lrange(key(q, "wait"), 0, -1));
        }
    }

    @Test
    void cleanJudgesWaitingDelayedAndPrioritizedJobsByTheirCreation() throws Exception {
        String q = queueName("cleanwait");
        Instant old = Instant.now().minus(Duration.ofHours(2));
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("old", Map.of(), createdAt(old));                  // 1
            queue.add("new", Map.of());                                 // 2
            queue.add("old", Map.of(), createdAt(old));                  // 3
            queue.add("oldp", Map.of(), createdAt(old).toBuilder().priority(2).build());     // 4
            queue.add("newp", Map.of(), priority(2));                   // 5
            queue.add("oldd", Map.of(), createdAt(old).toBuilder().delay(Duration.ofHours(3)).build()); // 6
            queue.add("newd", Map.of(), delayed(Duration.ofHours(3)));  // 7

            assertEquals(List.of("1", "3"), sorted(queue.clean(Duration.ofHours(1), 0, JobState.WAITING)));
            assertEquals(List.of("2"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(List.of("4"), queue.clean(Duration.ofHours(1), 0, JobState.PRIORITIZED));
            assertEquals(List.of("5"), redis().zrange(key(q, "prioritized"), 0, -1));
            assertEquals(List.of("6"), queue.clean(Duration.ofHours(1), 0, JobState.DELAYED));
            assertEquals(List.of("7"), redis().zrange(key(q, "delayed"), 0, -1));
            assertEquals(0L, redis().exists(key(q, "1"), key(q, "3"), key(q, "4"), key(q, "6")));
            assertEquals(List.of("2", "1", "1"), cleanedCounts(q));
        }
    }

    @Test
    void cleanKeepsActiveJobsAWorkerHolds() throws Exception {
        String q = queueName("cleanactive");
        try (Queue queue = new Queue(q, queueOptions()); Queue inAnHour = later(q, Duration.ofHours(1))) {
            // an orphan in active (its worker died, lock expired) is cleanable
            redis().hset(key(q, "orphan"), Map.of("name", "o", "data", "{}", "opts", "{}", "timestamp", "1",
                    "processedOn", "2"));
            redis().lpush(key(q, "active"), "orphan");
            Job job = queue.add("slow", Map.of());
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> active = new CompletableFuture<>();
            Worker worker = new Worker(q, j -> {
                active.complete(null);
                release.await();
                return "done";
            }, workerOptions().build());
            try {
                await(active);
                assertEquals(List.of("orphan"), inAnHour.clean(Duration.ZERO, 0, JobState.ACTIVE));
                assertEquals(List.of(job.id()), redis().lrange(key(q, "active"), 0, -1));
                assertEquals(1L, redis().exists(key(q, job.id())));
                assertEquals(0L, redis().exists(key(q, "orphan")));
            } finally {
                release.countDown();
                worker.close();
            }
        }
    }

    @Test
    void cleanWorksInPagesOfTenThousand() throws Exception {
        String q = queueName("cleanpages");
        try (Queue queue = new Queue(q, queueOptions()); Queue inAnHour = later(q, Duration.ofHours(1))) {
            List<BulkJob> jobs = new ArrayList<>();
            for (int i = 0; i < 10_050; i++) {
                jobs.add(BulkJob.of("w", Map.of()));
            }
            queue.addBulk(jobs);
            assertEquals(10_050, inAnHour.clean(Duration.ZERO, 0, JobState.WAITING).size());
            assertEquals(0L, redis().exists(key(q, "wait"), key(q, "1"), key(q, "10050")));
            assertEquals(List.of("10000", "50"), cleanedCounts(q));
        }
    }

    // ---- retryJobs ----

    @Test
    void retryJobsMovesFinishedJobsBackToWait() throws Exception {
        String q = queueName("retryjobs");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            Map<String, String> before = redis().hgetall(key(q, "3"));
            assertNotNull(before.get("finishedOn"));
            assertEquals(0, queue.retryJobs(JobState.FAILED, 10, Instant.ofEpochMilli(
                    Long.parseLong(before.get("finishedOn")) - 1)));
            redis().del(key(q, "marker"));

            assertEquals(1, queue.retryJobs(JobState.FAILED));
            Map<String, String> after = redis().hgetall(key(q, "3"));
            assertNull(after.get("finishedOn"));
            assertNull(after.get("processedOn"));
            assertNull(after.get("failedReason"));
            assertEquals("1", after.get("atm"), "attempts made stay, as in BullMQ 6.7");
            assertEquals(List.of("3", "5", "4"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0L, redis().zcard(key(q, "failed")));
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
            assertEquals(List.of(event("event", "waiting", "jobId", "3", "prev", "failed")),
                    events(q, "waiting").stream().filter(e -> e.containsKey("prev")).toList());

            // one per call: the loop goes on until none is left; Instant.MAX (past epoch milliseconds): all
            assertEquals(2, queue.retryJobs(JobState.COMPLETED, 1, Instant.MAX));
            assertEquals(0L, redis().zcard(key(q, "completed")));
            assertNull(redis().hget(key(q, "1"), "returnvalue"));
            assertEquals(5L, redis().llen(key(q, "wait")));
        }
    }

    /** As BullMQ's retryJobs (its script does not support priorities): a job with a priority goes to wait too. */
    @Test
    void retryJobsPutsAJobWithAPriorityInWaitAndLeavesAPausedQueueAsleep() throws Exception {
        String q = queueName("retryprio");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("bad", Map.of(), priority(2));
            finishAll(q, 1);
            queue.pause();
            assertEquals(1, queue.retryJobs(JobState.FAILED));
            assertEquals(List.of("1"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0L, redis().exists(key(q, "prioritized")));
            assertEquals("2", redis().hget(key(q, "1"), "priority"), "the job keeps its priority field");
            assertEquals(0L, redis().exists(key(q, "marker")));
        }
    }

    // ---- promoteJobs ----

    @Test
    void promoteJobsMovesEveryDelayedJobToWaitAsBullMQ() throws Exception {
        String q = queueName("promotejobs");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            queue.add("dp", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).priority(4).build()); // 9
            redis().del(key(q, "marker"));

            assertEquals(3, queue.promoteJobs(1));
            assertEquals(0L, redis().exists(key(q, "delayed")));
            // as in BullMQ: every promoted job goes to wait, 9 with its priority too, and keeps its delay field
            assertEquals(List.of("8", "9", "7", "5", "4"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(List.of("6"), redis().zrange(key(q, "prioritized"), 0, -1));
            assertEquals("3600000", redis().hget(key(q, "7"), "delay"));
            assertEquals(0.0, redis().zscore(key(q, "marker"), "0"));
            // by due time: 7 (in 1 h), 9 (in 1 h, added later), 8 (in 2 h)
            assertEquals(List.of(event("event", "waiting", "jobId", "7", "prev", "delayed"),
                    event("event", "waiting", "jobId", "9", "prev", "delayed"),
                    event("event", "waiting", "jobId", "8", "prev", "delayed")),
                    events(q, "waiting").stream().filter(e -> e.containsKey("prev")).toList());
            assertEquals(0, queue.promoteJobs());
        }
    }

    private static List<String> sorted(List<String> ids) {
        return ids.stream().sorted().toList();
    }
}
