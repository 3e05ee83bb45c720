package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 9, defects 3 and 4: a job whose hash is missing or damaged is taken out of the queue's lists, to failed
 * with the damage as its reason when a hash exists and with a "removed" event when none does; it never loops,
 * never runs, and never vanishes without a trace; one damaged job does not stop a stalled pass.
 */
class DamagedJobTest {

    @Test
    void anIdInWaitWithoutAHashIsRemovedWithAnEventAndNeverRun() throws Exception {
        String q = queueName("no-hash");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job gone = queue.add("gone", Map.of());
            Job fine = queue.add("fine", Map.of());
            redis().del(key(q, gone.id()));
            AtomicInteger ranGone = new AtomicInteger();
            try (Worker worker = new Worker(q, j -> {
                if (j.id().equals(gone.id())) {
                    ranGone.incrementAndGet();
                }
                return null;
            }, workerOptions().build())) {
                eventually(Duration.ofSeconds(15), () -> redis().zscore(key(q, "completed"), fine.id()) != null,
                        "the job after it runs");
            }
            assertEquals(0, ranGone.get(), "the processor never ran for the id without a hash");
            assertEquals(0L, redis().exists(key(q, gone.id())), "no partial hash was written");
            assertFalse(redis().lrange(key(q, "wait"), 0, -1).contains(gone.id()));
            assertFalse(redis().lrange(key(q, "active"), 0, -1).contains(gone.id()));
            List<Map<String, String>> removed = events(q, "removed", gone.id());
            assertEquals(1, removed.size(), "one removed event");
            assertEquals("waiting", removed.get(0).get("prev"));
            assertEquals("job hash missing", removed.get(0).get("reason"));
            assertEquals(List.of(), events(q, "active", gone.id()), "never announced as active");
        }
    }

    @Test
    void aNonNumericAttemptCountFailsTheJobNamingTheFieldInsteadOfLosingIt() throws Exception {
        String q = queueName("bad-atm");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("x", Map.of());
            Recorder rec = new Recorder();
            try (Worker worker = new Worker(q, j -> {
                redis().hset(key(q, j.id()), "atm", "not-a-number"); // damaged while it runs
                return "done";
            }, workerOptions().build(), rec)) {
                eventually(Duration.ofSeconds(15), () -> redis().zscore(key(q, "failed"), job.id()) != null,
                        "the damaged job is in failed");
            }
            assertFalse(redis().lrange(key(q, "active"), 0, -1).contains(job.id()), "left active");
            assertNull(redis().zscore(key(q, "completed"), job.id()));
            String reason = redis().hget(key(q, job.id()), "failedReason");
            assertTrue(reason.contains("atm") && reason.contains("not-a-number"), reason);
            assertEquals(0L, redis().exists(key(q, job.id()) + ":lock"));
            assertEquals(1, events(q, "failed", job.id()).size());
        }
    }

    @Test
    void aWrongTypeJobKeyInTheStalledCheckIsSetAsideAndThePassGoesOn() throws Exception {
        String q = queueName("stalled-wrongtype");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job good = queue.add("good", Map.of());
            // both ids active without a lock, as after a crash; one job key is a string, not a hash
            redis().lrem(key(q, "wait"), 0, good.id());
            redis().lpush(key(q, "active"), good.id(), "broken", "stc-bad");
            redis().set(key(q, "broken"), "not a hash");
            redis().hset(key(q, "stc-bad"), Map.of("name", "x", "data", "{}", "opts", "{}", "timestamp", "1",
                    "stc", "many"));
            redis().sadd(key(q, "stalled"), good.id(), "broken", "stc-bad");
            try (Worker worker = new Worker(q, j -> "ok", workerOptions()
                    .stalledInterval(Duration.ofMillis(500)).build())) {
                eventually(Duration.ofSeconds(20), () -> redis().zscore(key(q, "completed"), good.id()) != null,
                        "the sound stalled job is requeued and runs");
                eventually(Duration.ofSeconds(20), () -> redis().zscore(key(q, "failed"), "broken") != null
                        && redis().zscore(key(q, "failed"), "stc-bad") != null, "the damaged ones are in failed");
            }
            assertEquals(List.of(), redis().lrange(key(q, "active"), 0, -1));
            assertEquals("string", redis().type(key(q, "broken")), "the foreign key is left as it was");
            assertTrue(events(q, "failed", "broken").get(0).get("failedReason").contains("string"));
            String reason = redis().hget(key(q, "stc-bad"), "failedReason");
            assertTrue(reason.contains("stc"), reason);
        }
    }

    @Test
    void aDelayedIdWithoutAHashOrWithAForeignKeyIsSetAsideWhenDue() throws Exception {
        String q = queueName("delayed-no-hash");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job gone = queue.add("gone", Map.of(), JobOptions.builder().delay(Duration.ofMillis(200)).build());
            Job deleted = queue.add("deleted", Map.of(), JobOptions.builder().delay(Duration.ofMillis(200)).build());
            Job fine = queue.add("fine", Map.of(), JobOptions.builder().delay(Duration.ofMillis(300)).build());
            redis().set(key(q, gone.id()), "clobbered");
            redis().del(key(q, deleted.id()));
            try (Worker worker = new Worker(q, j -> null, workerOptions().build())) {
                eventually(Duration.ofSeconds(15), () -> redis().zscore(key(q, "completed"), fine.id()) != null,
                        "the next delayed job runs");
            }
            assertNotNull(redis().zscore(key(q, "failed"), gone.id()), "the clobbered job is in failed");
            assertNull(redis().zscore(key(q, "delayed"), gone.id()));
            assertNull(redis().zscore(key(q, "delayed"), deleted.id()));
            assertNull(redis().zscore(key(q, "failed"), deleted.id()), "no hash: nothing to fail");
            List<Map<String, String>> removed = events(q, "removed", deleted.id());
            assertEquals(1, removed.size(), "the id without a hash leaves with one removed event");
            assertEquals("delayed", removed.get(0).get("prev"));
            assertEquals(0L, redis().exists(key(q, deleted.id())), "no partial hash was written");
        }
    }

    @Test
    void aWrongTypeKeyNeitherPassesForADuplicateNorBreaksListingOrCleaning() throws Exception {
        String q = queueName("wrongtype-admin");
        try (Queue queue = new Queue(q, queueOptions())) {
            redis().set(key(q, "taken"), "foreign");
            RedisException e = assertThrows(RedisException.class,
                    () -> queue.add("x", Map.of(), JobOptions.builder().jobId("taken").build()));
            assertTrue(e.getMessage().contains("taken"), e.getMessage());
            assertNull(redis().get(key(q, "id")), "nothing was added, not even an id taken");
            assertEquals(List.of(), events(q, "duplicated", "taken"));

            Job ok = queue.add("ok", Map.of());
            redis().zadd(key(q, "completed"), 1, "taken");
            redis().zadd(key(q, "completed"), 2, ok.id());
            redis().lrem(key(q, "wait"), 0, ok.id());
            assertEquals(List.of(ok.id()), queue.getJobs(JobState.COMPLETED).stream().map(Job::id).toList(),
                    "the damaged entry is skipped, the listing still works");
            List<String> cleaned = queue.clean(Duration.ZERO, 0, JobState.COMPLETED);
            assertTrue(cleaned.contains("taken") && cleaned.contains(ok.id()), cleaned.toString());
        }
    }
}
