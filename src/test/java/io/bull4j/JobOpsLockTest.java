package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.JobOpsFixtures.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** What a processor does with its job's lock: the token, Job.extendLock and Job.moveToDelayed. */
class JobOpsLockTest {

    @Test
    void theProcessorsTokenIsTheValueOfTheLockKey() throws Exception {
        String q = queueName("token");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("t", Map.of());
            CompletableFuture<String[]> seen = new CompletableFuture<>();
            try (Worker worker = new Worker(q, j -> {
                seen.complete(new String[] {j.token(), redis().get(key(q, j.id() + ":lock"))});
                return null;
            }, workerOptions().build())) {
                String[] tokenAndLock = await(seen);
                assertNotNull(tokenAndLock[0]);
                assertTrue(tokenAndLock[0].matches("[0-9a-f-]{36}:\\d+"), tokenAndLock[0]);
                assertEquals(tokenAndLock[0], tokenAndLock[1]);
                eventually(Duration.ofSeconds(10), () -> redis().zscore(key(q, "completed"), job.id()) != null,
                        "job completed");
            }
            assertEquals(0, redis().exists(key(q, job.id() + ":lock")), "released on completion");
            assertNull(queue.getJob(job.id()).token(), "a job read from the queue carries no token");
        }
    }

    @Test
    void extendLockFromTheProcessorRenewsItAndClearsTheStalledMark() throws Exception {
        String q = queueName("extend");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("e", Map.of());
            CompletableFuture<long[]> seen = new CompletableFuture<>();
            try (Worker worker = new Worker(q, j -> {
                redis().sadd(key(q, "stalled"), j.id());
                j.extendLock(Duration.ofMinutes(5));
                seen.complete(new long[] {redis().pttl(key(q, j.id() + ":lock")),
                        redis().sismember(key(q, "stalled"), j.id()) ? 1 : 0});
                return null;
            }, workerOptions().lockDuration(Duration.ofSeconds(30)).build())) {
                long[] pttlAndStalled = await(seen);
                assertTrue(pttlAndStalled[0] > Duration.ofMinutes(4).toMillis(), "PTTL " + pttlAndStalled[0]);
                assertEquals(0, pttlAndStalled[1], "no longer a stalled candidate");
            }
        }
    }

    @Test
    void extendLockRefusesWhenTheLockIsNotOwned() {
        String q = queueName("extend-refused");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("e", Map.of());
            Job active = activate(queue, "mine");
            String lock = key(q, active.id() + ":lock");

            redis().set(lock, "someone-else");
            JobException mismatch = assertThrows(JobException.class, () -> active.extendLock(Duration.ofMinutes(1)));
            assertEquals(JobException.Reason.LOCK_MISMATCH, mismatch.reason());
            assertEquals("someone-else", redis().get(lock));
            assertEquals(-1, redis().pttl(lock), "the other owner's lock is untouched");

            redis().del(lock);
            assertEquals(JobException.Reason.LOCK_MISSING, assertThrows(JobException.class,
                    () -> active.extendLock(Duration.ofMinutes(1))).reason());
            assertEquals(0, redis().exists(lock), "not recreated");

            Job noToken = queue.getJob(active.id());
            assertEquals("token", assertThrows(ValidationException.class,
                    () -> noToken.extendLock(Duration.ofMinutes(1))).field());
            assertEquals("duration", assertThrows(ValidationException.class,
                    () -> active.extendLock(Duration.ZERO)).field());
        }
    }

    @Test
    void moveToDelayedParksTheJobWithoutCountingAnAttemptThenItRunsWhenDue() throws Exception {
        String q = queueName("move-delayed");
        ManualClock clock = new ManualClock(Instant.parse("2030-06-01T12:00:00Z"));
        long due = clock.millis() + Duration.ofMinutes(1).toMillis();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("m", Map.of());
            AtomicInteger runs = new AtomicInteger();
            CompletableFuture<Job> secondRun = new CompletableFuture<>();
            try (Worker worker = new Worker(q, j -> {
                if (runs.incrementAndGet() == 1) {
                    j.moveToDelayed(Instant.ofEpochMilli(due));
                    fail("moveToDelayed returns by throwing DelayedException");
                }
                secondRun.complete(j);
                return "done";
            }, workerOptions().clock(clock).build())) {
                eventually(Duration.ofSeconds(10), () -> redis().zscore(key(q, "delayed"), job.id()) != null,
                        "job parked in delayed");
                Map<String, String> hash = redis().hgetall(key(q, job.id()));
                assertEquals("60000", hash.get("delay"));
                assertNull(hash.get("atm"), "not a failed attempt");
                assertNull(hash.get("failedReason"));
                assertEquals("1", hash.get("ats"));
                assertEquals(due * 4096.0, redis().zscore(key(q, "delayed"), job.id()));
                assertEquals(0, redis().exists(key(q, job.id() + ":lock")), "lock released");
                assertEquals(0, redis().llen(key(q, "active")));
                assertEquals(Map.of("event", "delayed", "jobId", job.id(), "delay", Long.toString(due)),
                        lastEvent(q, job.id()));
                assertEquals(1, runs.get());

                clock.advance(Duration.ofMinutes(1));
                Job again = await(secondRun);
                assertEquals(0, again.attemptsMade());
                assertEquals(2, again.attemptsStarted());
                eventually(Duration.ofSeconds(10), () -> redis().zscore(key(q, "completed"), job.id()) != null,
                        "job completed");
            }
            Map<String, String> hash = redis().hgetall(key(q, job.id()));
            assertEquals("1", hash.get("atm"));
            assertEquals("\"done\"", hash.get("returnvalue"));
            assertEquals("0", hash.get("delay"), "reset when promoted");
        }
    }
}
