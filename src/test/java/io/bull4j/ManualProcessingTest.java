package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Manual processing (BullMQ's {@code getNextJob} and {@code job.moveTo*} with the caller's token): jobs taken and
 * finished by hand, the lock renewed by the caller, a lost lock refused, retries as BullMQ's moveToFailed makes them.
 */
class ManualProcessingTest {
    private static final String TOKEN = "manual-token:1";

    private static Worker manual(String q, WorkerOptions.Builder options) {
        return new Worker(q, options.build());
    }

    private static String key(String q, String suffix) {
        return "bull:" + q + ":" + suffix;
    }

    @Test
    void takesAndFinishesJobsByHandChainingWithFetchNext() throws Exception {
        String q = queueName("manual-chain");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions())) {
            for (int i = 1; i <= 3; i++) {
                queue.add("j", Map.of("n", i), JobOptions.builder().jobId("m" + i).build());
            }
            Job job = worker.getNextJob(TOKEN, false);
            assertEquals("m1", job.id());
            assertEquals(TOKEN, job.token());
            assertEquals(TOKEN, redis().get(key(q, "m1:lock")), "locked under the caller's token");
            int seen = 0;
            while (job != null) {
                seen++;
                int n = ((Number) ((Map<?, ?>) job.data()).get("n")).intValue();
                job = job.moveToCompleted(Map.of("doubled", 2 * n), TOKEN, true);
            }
            assertEquals(3, seen);
            assertEquals(3, redis().zcard(key(q, "completed")));
            assertEquals(0, redis().llen(key(q, "active")));
            for (int i = 1; i <= 3; i++) {
                Map<String, String> h = redis().hgetall(key(q, "m" + i));
                assertEquals("{\"doubled\":" + 2 * i + "}", h.get("returnvalue"));
                assertEquals("1", h.get("atm"));
                assertEquals(0, redis().exists(key(q, "m" + i + ":lock")), "the finish deleted the lock");
            }
            assertNull(worker.getNextJob(TOKEN, false), "nothing left");
        }
    }

    @Test
    void callerRenewsTheLockWhileAnotherWorkersStalledCheckRuns() throws Exception {
        String q = queueName("manual-renew");
        Set<String> processedElsewhere = ConcurrentHashMap.newKeySet();
        // long enough that a loaded machine's pauses do not lapse it between two renewals
        Duration lock = Duration.ofSeconds(2);
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions().lockDuration(lock))) {
            queue.add("long", Map.of(), JobOptions.builder().jobId("r1").build());
            Job job = worker.getNextJob(TOKEN, false);
            assertNotNull(job);
            // a processing worker whose stalled check would take the job back if the lock lapsed once
            try (Worker other = new Worker(q, j -> { processedElsewhere.add(j.id()); }, workerOptions()
                    .stalledInterval(Duration.ofMillis(200)).stalledSweepInterval(Duration.ofMillis(100)).build())) {
                long began = System.nanoTime();
                for (int renewals = 0; renewals < 9; renewals++) {
                    job.extendLock(TOKEN, lock);
                    assertEquals(TOKEN, redis().get(key(q, "r1:lock")));
                    assertTrue(redis().pttl(key(q, "r1:lock")) > 0);
                    Thread.sleep(lock.toMillis() / 6); // the caller's renewal cadence, not a wait for an outcome
                }
                assertTrue(System.nanoTime() - began > lock.toNanos() * 3 / 2, "held well past one lock duration");
                assertNull(job.moveToCompleted("done", TOKEN, false));
            }
            assertEquals(Set.of(), processedElsewhere, "the other worker never got the job");
            assertEquals(JobState.COMPLETED, queue.getJob("r1").getState());
            assertEquals("\"done\"", redis().hget(key(q, "r1"), "returnvalue"));
        }
    }

    @Test
    void aSchedulerRunWhoseNextRunCannotBeAddedIsNotHandedOverAndTheScheduleGoesOn() throws Exception {
        String q = queueName("manual-sched");
        io.bull4j.support.RedisTestServer server = io.bull4j.support.RedisTestServer.get();
        try (io.bull4j.support.ReplyCuttingProxy proxy = new io.bull4j.support.ReplyCuttingProxy(server.host(),
                server.port());
             // a short command bound: the call whose answer is cut fails at it
             Bull4jConnection viaProxy = Bull4jConnection.create(io.bull4j.support.AclUser.enabled()
                     ? io.bull4j.support.AclUser.withCredentials("redis://127.0.0.1:" + proxy.port())
                     : "redis://127.0.0.1:" + proxy.port(), Duration.ofSeconds(3));
             Queue queue = new Queue(q, queueOptions())) {
            queue.upsertJobScheduler("hourly", RepeatOptions.builder().cron("0 * * * *").immediately(true).build(),
                    JobTemplate.of("tick", Map.of()));
            try (Worker worker = manual(q, WorkerOptions.builder().connection(viaProxy)
                    .lockDuration(Duration.ofSeconds(2)))) {
                // the fetch goes through; the call that adds the next run loses its answer
                proxy.armOn(io.bull4j.internal.script.LuaScript.load("updateJobScheduler").sha());
                java.util.concurrent.CompletableFuture<Job> taken = java.util.concurrent.CompletableFuture
                        .supplyAsync(() -> worker.getNextJob(TOKEN, false));
                eventually(Duration.ofSeconds(10), proxy::triggered, "the next run's call sent");
                proxy.cut();
                java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                        () -> taken.get(20, java.util.concurrent.TimeUnit.SECONDS));
                assertInstanceOf(RedisException.class, e.getCause(), "the run is not handed over without its next run");
            }
            // the run was left active for the stalled check; a worker then runs it and adds the next run
            java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
            try (Worker recovering = new Worker(q, j -> {
                ran.countDown();
                return null;
            }, workerOptions().lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofSeconds(1)).build())) {
                assertTrue(ran.await(30, java.util.concurrent.TimeUnit.SECONDS), "the run came back and ran");
                eventually(Duration.ofSeconds(10), () -> redis().zcard(key(q, "delayed")) == 1,
                        "the next run is scheduled");
            }
            assertTrue(queue.getJobScheduler("hourly").next().isAfter(java.time.Instant.now()),
                    "the schedule goes on");
        }
    }

    @Test
    void aLostLockIsRefusedAndNothingIsWritten() throws Exception {
        String q = queueName("manual-lost");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions().lockDuration(Duration.ofMillis(300)));
             Worker longLocks = manual(q, workerOptions())) {
            queue.add("a", Map.of(), JobOptions.builder().jobId("l1").build());
            queue.add("b", Map.of(), JobOptions.builder().jobId("l2").build());
            Job expired = worker.getNextJob(TOKEN, false);
            Job other = longLocks.getNextJob("other-token", false);
            eventually(Duration.ofSeconds(10), () -> redis().exists(key(q, "l1:lock")) == 0, "lock l1 expired");

            JobException e = assertThrows(JobException.class, () -> expired.moveToCompleted("late", TOKEN, false));
            assertEquals(JobException.Reason.LOCK_MISSING, e.reason());
            assertEquals("l1", e.jobId());
            assertThrows(JobException.class, () -> expired.extendLock(TOKEN, Duration.ofSeconds(1)));
            assertNull(redis().hget(key(q, "l1"), "returnvalue"), "nothing written");
            assertEquals(List.of("l2", "l1"), redis().lrange(key(q, "active"), 0, -1));

            JobException mismatch = assertThrows(JobException.class,
                    () -> other.moveToFailed(new RuntimeException("x"), TOKEN, false));
            assertEquals(JobException.Reason.LOCK_MISMATCH, mismatch.reason());
            JobException extendMismatch = assertThrows(JobException.class,
                    () -> other.extendLock(TOKEN, Duration.ofSeconds(1)));
            assertEquals(JobException.Reason.LOCK_MISMATCH, extendMismatch.reason());
            assertNull(redis().hget(key(q, "l2"), "failedReason"));
            assertEquals("other-token", redis().get(key(q, "l2:lock")));
        }
    }

    @Test
    void moveToFailedRetriesWithBackoffUntilTheAttemptsAreUsed() throws Exception {
        String q = queueName("manual-retry");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions())) {
            queue.add("r", Map.of(), JobOptions.builder().jobId("f1").attempts(3)
                    .backoff(Backoff.fixed(Duration.ofMillis(150))).build());
            for (int attempt = 1; attempt <= 3; attempt++) {
                Job job = worker.getNextJob(TOKEN, true);
                assertNotNull(job, "attempt " + attempt + " taken once due");
                assertEquals(attempt - 1, job.attemptsMade());
                assertNull(job.moveToFailed(new IllegalStateException("boom " + attempt), TOKEN, true));
                Job stored = queue.getJob("f1");
                assertEquals(attempt, stored.attemptsMade());
                assertEquals("boom " + attempt, stored.failedReason());
                assertEquals(attempt, stored.stacktrace().size());
                assertEquals(attempt < 3 ? JobState.DELAYED : JobState.FAILED, stored.getState());
            }
            assertEquals(1, redis().zcard(key(q, "failed")));
        }
    }

    @Test
    void aLockMismatchNamesTheCommandAndTheStateAsBullmqDoes() throws Exception {
        // bullmq 6.7.0 (run against Redis, and compared by the differential scenario manual-refusals): "Lock mismatch
        // for job j1. Cmd moveToFinished from active", likewise moveToDelayed and moveJobFromActiveToWait. A finish,
        // completed or failed, is named moveToFinished, its script, in every refusal (bull4j named it moveToCompleted
        // or moveToFailed, after the Java call, until the differential suite compared the messages)
        String q = queueName("manual-mismatch-message");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions())) {
            queue.add("a", Map.of(), JobOptions.builder().jobId("j1").build());
            queue.add("b", Map.of(), JobOptions.builder().jobId("j2").build());
            Job job = worker.getNextJob(TOKEN, false);
            assertEquals("Lock mismatch for job j1. Cmd moveToFinished from active", assertThrows(JobException.class,
                    () -> job.moveToCompleted("x", "wrong", false)).getMessage());
            assertEquals("Lock mismatch for job j1. Cmd moveToFinished from active", assertThrows(JobException.class,
                    () -> job.moveToFailed(new RuntimeException("e"), "wrong", false)).getMessage());
            assertEquals("Lock mismatch for job j1. Cmd moveToDelayed from active", assertThrows(JobException.class,
                    () -> job.moveToDelayed(java.time.Instant.now().plusSeconds(1), "wrong")).getMessage());
            assertEquals("Lock mismatch for job j1. Cmd moveJobFromActiveToWait from active",
                    assertThrows(JobException.class, () -> job.moveToWait("wrong")).getMessage());
            assertEquals(TOKEN, redis().get(key(q, "j1:lock")), "nothing written");
            // a job never taken has no lock; token "0" skips the lock check, then the job is not active
            Job waiting = queue.getJob("j2");
            assertEquals("Missing lock for job j2. moveToFinished", assertThrows(JobException.class,
                    () -> waiting.moveToCompleted("x", TOKEN, false)).getMessage());
            assertEquals("Missing lock for job j2. moveToFinished", assertThrows(JobException.class,
                    () -> waiting.moveToFailed(new RuntimeException("e"), TOKEN, false)).getMessage());
            assertEquals("Job j2 is not in the active state. moveToFinished", assertThrows(JobException.class,
                    () -> waiting.moveToFailed(new RuntimeException("e"), "0", false)).getMessage());
            assertNull(redis().hget(key(q, "j2"), "failedReason"), "a refusal writes nothing (BullMQ's does here)");
        }
    }

    @Test
    void aRetryAfterABackoffWithFetchNextTakesTheNextJobUnderTheSameToken() throws Exception {
        // bullmq 6.7.0: moveToFailed(err, token, true) on a retry with a backoff moves the job to delayed and takes
        // the next job in the same call, locked under the token; a manual loop goes on with it
        String q = queueName("manual-retry-next");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions())) {
            queue.add("r", Map.of(), JobOptions.builder().jobId("b1").attempts(3)
                    .backoff(Backoff.fixed(Duration.ofMinutes(5))).build());
            queue.add("n", Map.of(), JobOptions.builder().jobId("b2").build());
            Job job = worker.getNextJob(TOKEN, false);
            assertEquals("b1", job.id());
            Job next = job.moveToFailed(new IllegalStateException("try later"), TOKEN, true);
            assertEquals(JobState.DELAYED, queue.getJob("b1").getState());
            assertNotNull(next, "the next job is taken in the same call");
            assertEquals("b2", next.id());
            assertEquals(TOKEN, next.token());
            assertEquals(JobState.ACTIVE, queue.getJob("b2").getState());
            assertEquals(TOKEN, redis().get(key(q, "b2:lock")));
            assertNull(next.moveToCompleted("ok", TOKEN, true), "nothing else is ready");
            assertEquals(JobState.COMPLETED, queue.getJob("b2").getState());
        }
    }

    @Test
    void retriesAtOnceWithoutBackoffAndNeverAfterAnUnrecoverableError() throws Exception {
        String q = queueName("manual-retry-now");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions())) {
            queue.add("r", Map.of(), JobOptions.builder().jobId("w1").attempts(2).build());
            Job job = worker.getNextJob(TOKEN, false);
            job.moveToFailed(new RuntimeException("first"), TOKEN, false);
            assertEquals(JobState.WAITING, queue.getJob("w1").getState());
            assertEquals(1, queue.getJob("w1").attemptsMade());

            queue.add("u", Map.of(), JobOptions.builder().jobId("u1").attempts(5).build());
            Job again = worker.getNextJob(TOKEN, false);
            assertEquals("w1", again.id());
            Job unrecoverableJob = worker.getNextJob("t2", false);
            assertEquals("u1", unrecoverableJob.id());
            unrecoverableJob.moveToFailed(new UnrecoverableException("no point"), "t2", false);
            Job u1 = queue.getJob("u1");
            assertEquals(JobState.FAILED, u1.getState());
            assertEquals("no point", u1.failedReason());
            assertEquals(1, u1.attemptsMade());
            // fetchNext on a final failure takes the next job under the same token (none here)
            assertNull(again.moveToFailed(new RuntimeException("second"), TOKEN, true));
            assertEquals(JobState.FAILED, queue.getJob("w1").getState());
            assertEquals(2, queue.getJob("w1").attemptsMade());
        }
    }

    @Test
    void moveToDelayedAndMoveToWaitSpendNoAttempt() throws Exception {
        String q = queueName("manual-delay");
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = manual(q, workerOptions())) {
            queue.add("d", Map.of(), JobOptions.builder().jobId("d1").build());
            Job job = worker.getNextJob(TOKEN, false);
            Instant due = Instant.now().plusMillis(300);
            job.moveToDelayed(due, TOKEN);
            assertEquals(JobState.DELAYED, queue.getJob("d1").getState());
            assertEquals(due.toEpochMilli(), redis().zscore(key(q, "delayed"), "d1").longValue() >> 12);
            assertEquals(0, redis().exists(key(q, "d1:lock")));

            Job again = worker.getNextJob(TOKEN, true); // blocks until it is due
            assertEquals("d1", again.id());
            assertEquals(Duration.ZERO, again.moveToWait(TOKEN));
            assertEquals(JobState.WAITING, queue.getJob("d1").getState());
            Job third = worker.getNextJob(TOKEN, false);
            assertEquals("d1", third.id());
            assertEquals(0, third.attemptsMade());
            third.moveToCompleted(null, TOKEN, false);
            assertEquals(1, queue.getJob("d1").attemptsMade());
        }
    }

    @Test
    void manualAndProcessorWorkersRefuseTheOtherMode() {
        String q = queueName("manual-modes");
        try (Worker worker = manual(q, workerOptions());
             Worker processing = new Worker(q, job -> null, workerOptions().autorun(false).build())) {
            assertThrows(Bull4jException.class, worker::run);
            assertFalse(worker.isRunning());
            assertThrows(Bull4jException.class, () -> processing.getNextJob(TOKEN, false));
            ValidationException e = assertThrows(ValidationException.class, () -> worker.getNextJob("", false));
            assertEquals("token", e.field());
        }
    }
}
