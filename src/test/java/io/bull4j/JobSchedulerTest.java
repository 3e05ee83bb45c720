package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.cron.CronCursor;
import io.bull4j.internal.cron.CronPattern;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.hash;
import static io.bull4j.WorkerTestKit.json;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/** Job schedulers against a real Redis: the stored layout, upserts, and the behaviours BullMQ's tests check. */
class JobSchedulerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration HOUR = Duration.ofHours(1);

    private static RepeatOptions every(Duration d) {
        return RepeatOptions.builder().every(d).build();
    }

    /** The scheduler's run jobs that exist (any state). */
    private static Set<String> runs(String q, String schedulerId) {
        return redis().keys(key(q, "repeat:" + schedulerId + ":*")).stream()
                .filter(k -> k.chars().filter(c -> c == ':').count() == 4)
                .map(k -> k.substring(key(q, "").length())).collect(Collectors.toSet());
    }

    @Test
    void everySchedulerIsStoredAsBullMQStoresIt() {
        String q = queueName("sched-layout");
        WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-05-05T10:00:00.250Z")
                .toEpochMilli());
        long now = clock.millis();
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            long idBefore = WorkerTestKit.idCounter(q);
            Job job = queue.upsertJobScheduler("tick", every(Duration.ofSeconds(10)),
                    JobTemplate.of("t", Map.of("a", 1), JobOptions.builder().attempts(3).build()));

            assertEquals("repeat:tick:" + now, job.id());
            assertEquals("tick", job.repeatJobKey());
            assertEquals((double) now, redis().zscore(key(q, "repeat"), "tick"));
            Map<String, String> h = redis().hgetall(key(q, "repeat:tick"));
            assertEquals(Map.of("name", "t", "every", "10000", "offset", Long.toString(now % 10000), "ic", "1",
                    "data", "{\"a\":1}", "opts", "{\"attempts\":3}"), h);
            Map<String, String> run = hash(q, job.id());
            assertEquals("tick", run.get("rjk"));
            assertEquals("t", run.get("name"));
            assertEquals("0", run.get("delay"));
            JsonNode opts = json(run.get("opts"));
            assertEquals("tick", opts.get("repeatJobKey").asText());
            assertEquals(job.id(), opts.get("jobId").asText());
            assertEquals(3, opts.get("attempts").asInt());
            assertEquals(10000, opts.get("repeat").get("every").asLong());
            assertEquals(1, opts.get("repeat").get("count").asInt());
            assertFalse(opts.has("prevMillis"), "an every run carries no prevMillis, as BullMQ's");
            assertEquals(List.of(job.id()), redis().lrange(key(q, "wait"), 0, -1), "the first run is due now");
            assertEquals(idBefore + 1, WorkerTestKit.idCounter(q), "INCR id, as every add");
            assertEquals(1, queue.getJobSchedulersCount());
        }
    }

    @Test
    void cronSchedulerWaitsForThePatternsNextTimeInItsZone() {
        String q = queueName("sched-cron");
        WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-03-30T00:30:00Z")
                .toEpochMilli());
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        Instant end = Instant.parse("2031-12-31T00:00:00Z");
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            Job job = queue.upsertJobScheduler("digest", RepeatOptions.builder().cron("0 9 * * *").tz(berlin)
                    .limit(10).endDate(end).build(), JobTemplate.of("digest", null));
            // 09:00 in Berlin, on the day summer time starts there (UTC+2)
            long expected = Instant.parse("2031-03-30T07:00:00Z").toEpochMilli();
            assertEquals("repeat:digest:" + expected, job.id());
            assertEquals(Math.floor(expected * 4096.0), redis().zscore(key(q, "delayed"), job.id()));
            assertEquals(Map.of("name", "digest", "tz", "Europe/Berlin", "pattern", "0 9 * * *", "limit", "10",
                    "endDate", Long.toString(end.toEpochMilli()), "offset", "0", "ic", "1"),
                    redis().hgetall(key(q, "repeat:digest")));
            JsonNode opts = json(hash(q, job.id()).get("opts"));
            assertEquals(expected, opts.get("prevMillis").asLong());
            assertEquals("0 9 * * *", opts.get("repeat").get("pattern").asText());
            assertEquals("Europe/Berlin", opts.get("repeat").get("tz").asText());

            JobScheduler s = queue.getJobScheduler("digest");
            assertEquals("0 9 * * *", s.pattern());
            assertEquals(Instant.ofEpochMilli(expected), s.next());
            assertEquals(1L, s.iterationCount());
            assertEquals(10, s.limit());
            assertEquals(end, s.endDate());
            assertEquals(Duration.ZERO, s.offset());
            assertNull(s.templateData());
            assertNull(s.templateOptions());
        }
    }

    @Test
    void badInputNamesTheFieldAndWritesNothing() {
        String q = queueName("sched-invalid");
        try (Queue queue = new Queue(q, queueOptions())) {
            assertEquals("every", assertThrows(ValidationException.class, () -> RepeatOptions.builder()
                    .every(Duration.ofSeconds(1)).cron("* * * * *").build()).field());
            assertEquals("every", assertThrows(ValidationException.class,
                    () -> RepeatOptions.builder().build()).field());
            assertEquals("immediately", assertThrows(ValidationException.class, () -> RepeatOptions.builder()
                    .cron("* * * * *").immediately(true).startDate(Instant.now()).build()).field());
            assertEquals("cron", assertThrows(ValidationException.class,
                    () -> RepeatOptions.builder().cron("0 0 15W * *")).field());
            assertEquals("every", assertThrows(ValidationException.class,
                    () -> RepeatOptions.builder().every(Duration.ZERO)).field());
            assertEquals("limit", assertThrows(ValidationException.class,
                    () -> RepeatOptions.builder().limit(0)).field());
            assertEquals("template.options.jobId", assertThrows(ValidationException.class,
                    () -> JobTemplate.of("n", null, JobOptions.builder().jobId("x").build())).field());
            RepeatOptions ended = RepeatOptions.builder().every(Duration.ofSeconds(1))
                    .endDate(Instant.now().minusSeconds(60)).build();
            assertEquals("endDate", assertThrows(ValidationException.class,
                    () -> queue.upsertJobScheduler("s", ended, null)).field());
            assertEquals("id", assertThrows(ValidationException.class,
                    () -> queue.upsertJobScheduler("", every(HOUR), null)).field());
            assertEquals(List.of(), redis().keys(key(q, "repeat*")), "nothing written");
            assertEquals(0, queue.getJobSchedulersCount());
        }
    }

    @Test
    void upsertingAgainKeepsOneSchedulerAndOnePendingRun() {
        String q = queueName("sched-upsert");
        try (Queue queue = new Queue(q, queueOptions())) {
            RepeatOptions start = RepeatOptions.builder().every(HOUR).startDate(Instant.now().plus(HOUR)).build();
            Job first = queue.upsertJobScheduler("s", start, JobTemplate.of("a", Map.of("v", 1)));
            for (int i = 2; i <= 5; i++) {
                queue.upsertJobScheduler("s", start, JobTemplate.of("a", Map.of("v", i)));
            }
            assertEquals(1, queue.getJobSchedulersCount());
            assertEquals(Set.of(first.id()), runs(q, "s"), "the same slot, replaced in place");
            assertEquals("{\"v\":5}", hash(q, first.id()).get("data"));
            assertEquals(1, redis().zcard(key(q, "delayed")));

            // a changed interval reschedules: the old pending run goes, the new one starts now
            Job changed = queue.upsertJobScheduler("s", every(Duration.ofMinutes(5)), JobTemplate.of("a", null));
            assertNotEquals(first.id(), changed.id());
            assertEquals(Set.of(changed.id()), runs(q, "s"));
            assertEquals(0, redis().zcard(key(q, "delayed")));
            assertEquals(List.of(changed.id()), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("300000", redis().hget(key(q, "repeat:s"), "every"));
        }
    }

    @Test
    void startDateInTheFutureIsTheFirstRunAndOffsetAlignsTheSlots() {
        String q = queueName("sched-start");
        WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-01-01T00:00:07.500Z")
                .toEpochMilli());
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            Instant start = Instant.parse("2031-01-01T00:10:00Z");
            Job later = queue.upsertJobScheduler("later", RepeatOptions.builder().every(Duration.ofMinutes(1))
                    .startDate(start).build(), null);
            assertEquals("repeat:later:" + start.toEpochMilli(), later.id());
            assertEquals("later", later.name(), "the scheduler's id names its jobs by default");

            Job aligned = queue.upsertJobScheduler("aligned", RepeatOptions.builder().every(Duration.ofSeconds(10))
                    .offset(Duration.ofSeconds(3)).build(), null);
            assertEquals("repeat:aligned:" + Instant.parse("2031-01-01T00:00:13Z").toEpochMilli(), aligned.id());
            assertEquals("3000", redis().hget(key(q, "repeat:aligned"), "offset"));
            assertEquals(3000, json(hash(q, aligned.id()).get("opts")).get("repeat").get("offset").asLong());
        }
    }

    @Test
    void eachFetchedRunAddsTheNextAndAFailedRunKeepsTheScheduleGoing() throws Exception {
        String q = queueName("sched-run");
        AtomicInteger calls = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("s", every(HOUR), JobTemplate.of("n", Map.of("k", "v")));
            Worker worker = new Worker(q, job -> {
                calls.incrementAndGet();
                throw new IllegalStateException("run fails");
            }, workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), first.id()) != null, "first run failed");
                long firstMillis = Long.parseLong(first.id().substring("repeat:s:".length()));
                String second = "repeat:s:" + (firstMillis + HOUR.toMillis());
                assertEquals(Set.of(first.id(), second), runs(q, "s"));
                assertNotNull(redis().zscore(key(q, "delayed"), second), "the next run waits its hour");
                Map<String, String> h = hash(q, second);
                assertEquals("s", h.get("rjk"));
                assertEquals("{\"k\":\"v\"}", h.get("data"));
                assertEquals(2, json(h.get("opts")).get("repeat").get("count").asInt());
                assertEquals("2", redis().hget(key(q, "repeat:s"), "ic"));
                assertEquals((double) (firstMillis + HOUR.toMillis()), redis().zscore(key(q, "repeat"), "s"));

                // retrying the failed run adds no extra run: only the current run may add the next
                assertEquals(1, queue.retryJobs(JobState.FAILED));
                eventually(WAIT, () -> calls.get() == 2, "the retried run ran again");
                eventually(WAIT, () -> redis().zscore(key(q, "failed"), first.id()) != null, "failed again");
                assertEquals(Set.of(first.id(), second), runs(q, "s"));
                assertEquals("2", redis().hget(key(q, "repeat:s"), "ic"));

                // the second run, promoted, adds the third
                assertEquals(1, queue.promoteJobs());
                eventually(WAIT, () -> runs(q, "s").size() == 3, "third run added");
                assertEquals("3", redis().hget(key(q, "repeat:s"), "ic"));
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void theLimitEndsTheSchedule() throws Exception {
        String q = queueName("sched-limit");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.upsertJobScheduler("s", RepeatOptions.builder().every(HOUR).limit(2).build(), null);
            Worker worker = new Worker(q, job -> "ok", workerOptions().build());
            try {
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 1, "first run done");
                assertEquals(1, queue.promoteJobs());
                eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 2, "second run done");
                assertEquals(2, runs(q, "s").size(), "no third run");
                assertEquals(0, redis().zcard(key(q, "delayed")));
                assertEquals(0, queue.count());
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void cronRunsFollowThePatternAcrossWorkers() throws Exception {
        String q = queueName("sched-cron-run");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("c", RepeatOptions.builder().cron("0 0 * * * *")
                    .tz(ZoneId.of("America/New_York")).immediately(true).build(), JobTemplate.of("c", null));
            long firstMillis = Long.parseLong(first.id().substring("repeat:c:".length()));
            Worker worker = new Worker(q, job -> null, workerOptions().build());
            try {
                eventually(WAIT, () -> runs(q, "c").size() == 2, "next run added");
            } finally {
                worker.close();
            }
            long expected = CronCursor.nextAfter(CronPattern.parse("0 0 * * * *"), ZoneId.of("America/New_York"),
                    Math.max(System.currentTimeMillis() - 60_000, firstMillis), null);
            String next = runs(q, "c").stream().filter(id -> !id.equals(first.id())).findFirst().orElseThrow();
            long nextMillis = Long.parseLong(next.substring("repeat:c:".length()));
            assertEquals(0, nextMillis % 3_600_000, "on the hour");
            assertTrue(nextMillis == expected || nextMillis == expected + 3_600_000, "the next hour: " + next);
            assertEquals(nextMillis, json(hash(q, next).get("opts")).get("prevMillis").asLong());
        }
    }

    @Test
    void removeDrainAndCleanSpareThePendingRun() {
        String q = queueName("sched-spare");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job pending = queue.upsertJobScheduler("s", RepeatOptions.builder().every(HOUR)
                    .startDate(Instant.now().plus(HOUR)).build(), null);
            assertFalse(queue.remove(pending.id()), "a scheduler's pending run is the scheduler's to remove");
            queue.drain(true);
            assertEquals(List.of(), queue.clean(Duration.ZERO, 0, JobState.DELAYED));
            assertNotNull(redis().zscore(key(q, "delayed"), pending.id()));

            assertTrue(queue.removeJobScheduler("s"));
            assertFalse(queue.removeJobScheduler("s"));
            assertNull(queue.getJobScheduler("s"));
            assertEquals(Set.of(), runs(q, "s"), "its delayed run goes with it");
            assertEquals(0, queue.getJobSchedulersCount());
        }
    }

    @Test
    void listsSchedulersByNextRunAndDropsDanglingEntries() {
        String q = queueName("sched-list");
        try (Queue queue = new Queue(q, queueOptions())) {
            Instant base = Instant.now().plus(HOUR);
            queue.upsertJobScheduler("b", RepeatOptions.builder().every(HOUR).startDate(base.plusSeconds(20))
                    .build(), null);
            queue.upsertJobScheduler("a", RepeatOptions.builder().every(HOUR).startDate(base.plusSeconds(10))
                    .build(), null);
            queue.upsertJobScheduler("c", RepeatOptions.builder().every(HOUR).startDate(base.plusSeconds(30))
                    .build(), null);
            assertEquals(List.of("a", "b", "c"), queue.getJobSchedulers(0, -1, true).stream()
                    .map(JobScheduler::id).toList());
            assertEquals(List.of("c", "b"), queue.getJobSchedulers(0, 1, false).stream()
                    .map(JobScheduler::id).toList());
            redis().zadd(key(q, "repeat"), 1, "ghost");
            assertEquals(4, queue.getJobSchedulersCount());
            assertEquals(3, queue.getJobSchedulers().size());
            assertNull(redis().zscore(key(q, "repeat"), "ghost"), "the dangling entry is removed");
        }
    }

    @Test
    void aCronRunWhoseIdIsTakenIsRefused() {
        String q = queueName("sched-collide");
        WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-01-01T00:00:00Z")
                .toEpochMilli());
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            long next = Instant.parse("2031-01-01T01:00:00Z").toEpochMilli();
            redis().hset(key(q, "repeat:h:" + next), Map.of("name", "old", "data", "{}"));
            Bull4jException e = assertThrows(Bull4jException.class, () -> queue.upsertJobScheduler("h",
                    RepeatOptions.builder().cron("0 * * * *").tz(ZoneId.of("UTC")).build(), null));
            assertTrue(e.getMessage().contains("taken"), e.getMessage());
            assertEquals(0, queue.getJobSchedulersCount());
        }
    }

    @Test
    void aStalledRunIsRunAgainPastTheStalledLimitWithoutAddingAnotherRun() throws Exception {
        String q = queueName("sched-stalled");
        AtomicInteger calls = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("s", every(HOUR), null);
            // a worker takes the run (the fetch adds the next one of an every scheduler itself) and dies: no lock
            QueueContext ctx = queue.context();
            io.bull4j.internal.script.FetchedJob fetched = ctx.await(io.bull4j.internal.script.MoveToActive.run(
                    ctx.scripts(), ctx.keys, ctx.now(), "dead:1", 30_000, null), "moveToActive");
            String id = fetched.id();
            assertEquals(first.id(), id);
            assertTrue(fetched.schedulerSettled(), "the fetch settled the next run");
            assertNull(new JobSchedulers(ctx).addNextIteration(id, hash(q, id)), "a second add adds nothing");
            Set<String> both = runs(q, "s");
            assertEquals(2, both.size(), "the fetch added the next run");
            String second = both.stream().filter(r -> !r.equals(id)).findFirst().orElseThrow();
            redis().del(key(q, id + ":lock"));

            // maxStalledCount 0 would fail a plain job at its first stall; a scheduler's run is given back
            Worker worker = new Worker(q, job -> calls.incrementAndGet(), workerOptions()
                    .stalledInterval(Duration.ofMillis(500)).maxStalledCount(0).build());
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), id) != null, "re-run and completed");
            } finally {
                worker.close();
            }
            assertEquals(1, calls.get());
            assertEquals(Set.of(id, second), runs(q, "s"), "the re-run added no run");
            assertEquals("2", redis().hget(key(q, "repeat:s"), "ic"));
        }
    }

    @Test
    void upsertReplacesAPendingRunThatIsWaitingOrPrioritizedAndLeavesAnActiveOne() {
        String q = queueName("sched-replace");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job waiting = queue.upsertJobScheduler("w", every(HOUR), JobTemplate.of("a", Map.of("v", 1)));
            Job again = queue.upsertJobScheduler("w", every(HOUR), JobTemplate.of("a", Map.of("v", 2)));
            assertEquals(waiting.id(), again.id(), "same slot");
            assertEquals(List.of(again.id()), redis().lrange(key(q, "wait"), 0, -1), "one waiting run");
            assertEquals("{\"v\":2}", hash(q, again.id()).get("data"));

            JobOptions prio = JobOptions.builder().priority(3).build();
            Job p1 = queue.upsertJobScheduler("p", every(HOUR), JobTemplate.of("b", null, prio));
            assertNotNull(redis().zscore(key(q, "prioritized"), p1.id()));
            Job p2 = queue.upsertJobScheduler("p", every(HOUR), JobTemplate.of("b", Map.of("x", 1), prio));
            assertEquals(p1.id(), p2.id());
            assertEquals(1, redis().zcard(key(q, "prioritized")));

            // an active run is not replaced: the upsert adds the next run instead
            Job active = JobOpsFixtures.activate(queue, "t:1");
            assertEquals(again.id(), active.id());
            Job next = queue.upsertJobScheduler("w", every(HOUR), JobTemplate.of("a", Map.of("v", 3)));
            assertNotEquals(active.id(), next.id());
            assertEquals(List.of(active.id()), redis().lrange(key(q, "active"), 0, -1));
            assertEquals(Set.of(active.id(), next.id()), runs(q, "w"));
        }
    }

    @Test
    void aRunPastTheEndDateAddsNoNextRun() {
        String q = queueName("sched-end");
        WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-01-01T00:00:00Z")
                .toEpochMilli());
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            Job first = queue.upsertJobScheduler("e", RepeatOptions.builder().cron("0 * * * *")
                    .tz(ZoneId.of("UTC")).immediately(true).endDate(Instant.parse("2031-01-01T01:30:00Z")).build(),
                    null);
            JobSchedulers schedulers = new JobSchedulers(queue.context());
            String second = schedulers.addNextIteration(first.id(), hash(q, first.id()));
            assertEquals("repeat:e:" + Instant.parse("2031-01-01T01:00:00Z").toEpochMilli(), second);
            // the run after 01:00 would be 02:00, past the end date: none is added
            assertNull(schedulers.addNextIteration(second, hash(q, second)));
            clock.advance(Duration.ofHours(2));
            assertNull(schedulers.addNextIteration(second, hash(q, second)));
            assertEquals(Set.of(first.id(), second), runs(q, "e"));
        }
    }

    @Test
    void aRunWhoseScheduleCannotBeComputedIsProcessedAndReported() throws Exception {
        String q = queueName("sched-bad-zone");
        WorkerTestKit.Recorder rec = new WorkerTestKit.Recorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("z", RepeatOptions.builder().cron("0 * * * *")
                    .tz(ZoneId.of("UTC")).immediately(true).build(), null);
            // as a BullMQ producer on another tz database might have stored it
            String opts = hash(q, first.id()).get("opts").replace("\"UTC\"", "\"Mars/Olympus_Mons\"");
            redis().hset(key(q, first.id()), "opts", opts);
            Worker worker = new Worker(q, job -> "done", workerOptions().build(), rec);
            try {
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), first.id()) != null, "run processed");
                eventually(WAIT, () -> rec.errors.stream().anyMatch(e -> e.getMessage().contains("Mars/Olympus_Mons")),
                        "the error names the zone");
            } finally {
                worker.close();
            }
            assertEquals(Set.of(first.id()), runs(q, "z"), "no next run");
        }
    }

    @Test
    void aRunIsNotProcessedWhileItsNextRunCannotBeWrittenAndRunsOnceRedisTakesIt() throws Exception {
        String q = queueName("sched-redis-fails");
        WorkerTestKit.Recorder rec = new WorkerTestKit.Recorder();
        AtomicInteger calls = new AtomicInteger();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("f", every(HOUR), null);
            Map<String, String> definition = redis().hgetall(key(q, "repeat:f"));
            // the definition is damaged: Redis refuses the update script (WRONGTYPE)
            redis().del(key(q, "repeat:f"));
            redis().set(key(q, "repeat:f"), "not a hash");
            Worker worker = new Worker(q, job -> calls.incrementAndGet(), workerOptions()
                    .stalledInterval(Duration.ofMillis(500)).build(), rec);
            try {
                eventually(WAIT, () -> rec.errors.stream().anyMatch(e -> e instanceof RedisException),
                        "the failed update is reported");
                assertEquals(0, calls.get(), "the run is not processed without its next run");
                redis().del(key(q, "repeat:f"));
                redis().hset(key(q, "repeat:f"), definition);
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), first.id()) != null,
                        "recovered by the stalled check and run once the update succeeds");
            } finally {
                worker.close();
            }
            assertEquals(1, calls.get());
            assertEquals(2, runs(q, "f").size(), "the next run was added");
        }
    }

    @Test
    void theFetchAddsTheNextEveryRunExactlyAsTheWorkersOwnUpdateDoes() {
        // the same scheduler on two queues at the same instant: on one the fetch adds the next run itself; on the
        // other it cannot (its "ic" is hidden during the fetch) and the worker's own path (updateJobScheduler) adds
        // it. Both must leave the same run, scheduler and events behind.
        long t0 = Instant.parse("2031-01-01T00:00:00Z").toEpochMilli();
        RepeatOptions repeat = RepeatOptions.builder().every(Duration.ofMinutes(10)).offset(Duration.ofMinutes(3))
                .limit(5).endDate(Instant.parse("2032-01-01T00:00:00Z")).build();
        JobTemplate template = JobTemplate.of("n", Map.of("k", "v"), JobOptions.builder().attempts(3).build());
        String[] names = {queueName("sched-fetch-a"), queueName("sched-fetch-b")};
        List<Map<String, String>> nextRuns = new java.util.ArrayList<>();
        List<List<Map<String, String>>> events = new java.util.ArrayList<>();
        List<Map<String, String>> definitions = new java.util.ArrayList<>();
        for (int side = 0; side < 2; side++) {
            String q = names[side];
            WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(t0);
            try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
                Job first = queue.upsertJobScheduler("s", repeat, template);
                clock.advance(Duration.ofMinutes(4)); // the first run is due at 00:03
                QueueContext ctx = queue.context();
                if (side == 1) {
                    redis().hdel(key(q, "repeat:s"), "ic");
                }
                io.bull4j.internal.script.FetchedJob fetched = ctx.await(io.bull4j.internal.script.MoveToActive.run(
                        ctx.scripts(), ctx.keys, ctx.now(), "t:1", 30_000, null), "moveToActive");
                assertEquals(first.id(), fetched.id());
                assertEquals(side == 0, fetched.schedulerSettled());
                if (side == 1) {
                    redis().hset(key(q, "repeat:s"), "ic", "1");
                    assertNotNull(new JobSchedulers(ctx).addNextIteration(fetched.id(), fetched.fields()));
                }
                Set<String> all = runs(q, "s");
                assertEquals(2, all.size());
                String next = all.stream().filter(r -> !r.equals(first.id())).findFirst().orElseThrow();
                assertEquals("repeat:s:" + (t0 + Duration.ofMinutes(13).toMillis()), next);
                nextRuns.add(hash(q, next));
                definitions.add(redis().hgetall(key(q, "repeat:s")));
                definitions.get(side).put("next", String.valueOf(redis().zscore(key(q, "repeat"), "s")));
                events.add(redis().xrange(key(q, "events"), io.lettuce.core.Range.create("-", "+")).stream()
                        .map(io.lettuce.core.StreamMessage::getBody).toList());
            }
        }
        // the opts text is cjson's on both paths, whose key order follows the table's history: compared parsed
        assertEquals(json(nextRuns.get(1).remove("opts")), json(nextRuns.get(0).remove("opts")));
        assertEquals(nextRuns.get(1), nextRuns.get(0));
        assertEquals(definitions.get(1), definitions.get(0));
        assertEquals("2", definitions.get(0).get("ic"));
        assertEquals(events.get(1), events.get(0));
    }
}
