package io.bull4j;

import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveToActive;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A fetch that takes the last ready job also says what a fetch right after it would answer (the earliest delayed
 * job's due time, 0 for none), so that the worker need not ask; it says nothing while other jobs are ready.
 */
class FetchDrainedHintTest {
    @Test
    void theFetchOfTheLastReadyJobCarriesTheNextDelayedTime() {
        String q = queueName("fetch-hint");
        WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-01-01T00:00:00Z")
                .toEpochMilli());
        try (Queue queue = new Queue(q, queueOptions().toBuilder().clock(clock).build())) {
            QueueContext ctx = queue.context();
            queue.add("a", Map.of());
            queue.add("b", Map.of());
            FetchedJob first = fetch(ctx, "t:1");
            assertTrue(first.isPresent());
            assertEquals(1, first.readyCount());
            assertEquals(-1, first.drainedNextDelayedMs(), "another job is ready: no hint");

            FetchedJob second = fetch(ctx, "t:2");
            assertTrue(second.isPresent());
            assertEquals(0, second.drainedNextDelayedMs(), "nothing ready and nothing delayed");
            FetchedJob empty = fetch(ctx, "t:3");
            assertFalse(empty.isPresent());
            assertEquals(0, empty.nextDelayedMs(), "the empty fetch that the hint stands for says the same");

            queue.add("c", Map.of());
            Job later = queue.add("d", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(5)).build());
            FetchedJob third = fetch(ctx, "t:4");
            assertTrue(third.isPresent());
            long due = clock.millis() + Duration.ofMinutes(5).toMillis();
            assertEquals(due, third.drainedNextDelayedMs());
            FetchedJob none = fetch(ctx, "t:5");
            assertFalse(none.isPresent());
            assertEquals(due, none.nextDelayedMs(), "the empty fetch that the hint stands for says the same");
            assertNotNull(redis().zscore(key(q, "delayed"), later.id()));

            // the fetch reaches the global concurrency (3 taken before, 4 with this one): an empty fetch after it
            // would answer {0, 0, 0, 0}, so no hint is given
            queue.add("e", Map.of());
            redis().hset(key(q, "meta"), "concurrency", "4");
            FetchedJob maxed = fetch(ctx, "t:6");
            assertTrue(maxed.isPresent());
            assertEquals(-1, maxed.drainedNextDelayedMs(), "global concurrency reached: no hint");
        }
    }

    /**
     * A fetch that takes a job scheduler's run adds the next run to delayed, which reads the earliest delayed job
     * for the delay marker; when nothing else is ready, the hint is that same read (one ZRANGE, not two: nothing
     * changes delayed in between). On a server of its own, so that INFO commandstats counts this fetch alone.
     */
    @Test
    void aSchedulerRunsFetchGivesTheHintFromTheMarkersRead() {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri())) {
            String q = queueName("fetch-hint-sched");
            WorkerTestKit.ManualClock clock = new WorkerTestKit.ManualClock(Instant.parse("2031-01-01T00:00:00Z")
                    .toEpochMilli());
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).clock(clock).build())) {
                Job first = queue.upsertJobScheduler("s", RepeatOptions.builder().every(Duration.ofHours(1)).build(),
                        null);
                // a plain delayed job due before the next run: the earliest delayed job is not the run just added
                Job sooner = queue.add("sooner", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(5)).build());
                QueueContext ctx = queue.context();
                long zrangeBefore = calls(server, "zrange");
                FetchedJob run = fetch(ctx, "t:1");
                long zranges = calls(server, "zrange") - zrangeBefore;
                assertEquals(first.id(), run.id());
                assertTrue(run.schedulerSettled(), "the fetch added the next run");
                assertNotNull(server.sync().zscore(key(q, "delayed"), "repeat:s:" + (clock.millis()
                        + Duration.ofHours(1).toMillis())), "the next run is delayed");
                assertEquals(clock.millis() + Duration.ofMinutes(5).toMillis(), run.drainedNextDelayedMs(),
                        "the hint is the earliest delayed job's time");
                assertEquals(clock.millis() + Duration.ofMinutes(5).toMillis(),
                        server.sync().zscore(key(q, "marker"), "1").longValue(), "the delay marker says the same");
                assertEquals(1, zranges, "one read of the earliest delayed job");
                FetchedJob none = fetch(ctx, "t:2");
                assertFalse(none.isPresent());
                assertEquals(run.drainedNextDelayedMs(), none.nextDelayedMs(),
                        "the empty fetch that the hint stands for says the same");
                assertNotNull(sooner.id());
            }
        }
    }

    /** Calls of one command since the server started, from INFO commandstats. */
    private static long calls(RedisTestServer server, String command) {
        for (String line : server.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return 0;
    }

    private static FetchedJob fetch(QueueContext ctx, String token) {
        return ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), token, 30_000, null), "moveToActive");
    }
}
