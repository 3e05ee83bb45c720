package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.JobOpsFixtures.activate;
import static io.bull4j.JobOpsFixtures.finish;
import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Deduplication on add, as BullMQ 6.7.0's deduplication tests check it: modes, keys, events, release. */
@SuppressWarnings("deprecation") // the debounce aliases are tested too
class DeduplicationTest {
    private static JobOptions dedup(Deduplication d) {
        return JobOptions.builder().deduplication(d).build();
    }

    private static JobOptions dedup(Deduplication d, Duration delay) {
        return JobOptions.builder().deduplication(d).delay(delay).build();
    }

    @Test
    void aSecondAddIsDeduplicatedWithAnEvent() {
        String q = queueName("dedup-simple");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("a", Map.of("n", 1), dedup(Deduplication.of("d1")));
            Job second = queue.add("a", Map.of("n", 2), dedup(Deduplication.of("d1")));
            assertEquals(first.id(), second.id(), "the owner is returned");
            assertEquals("{\"n\":1}", second.dataJson(), "the owner's data, not the ignored add's");
            assertEquals(1, redis().llen(key(q, "wait")));
            assertEquals(2, idCounter(q), "the id counter moves for the ignored add too");
            assertEquals(first.id(), redis().get(key(q, "de:d1")));
            assertEquals(-1, redis().pttl(key(q, "de:d1")), "no ttl: held until the owner finishes");
            assertEquals(first.id(), queue.getDeduplicationJobId("d1"));
            assertEquals("d1", hash(q, first.id()).get("deid"));
            JsonNode opts = json(hash(q, first.id()).get("opts"));
            assertEquals("d1", opts.get("de").get("id").asText(), "stored compressed as de");
            List<Map<String, String>> ev = events(q, "deduplicated", null);
            assertEquals(1, ev.size());
            assertEquals(first.id(), ev.get(0).get("jobId"));
            assertEquals("d1", ev.get(0).get("deduplicationId"));
            assertEquals("2", ev.get(0).get("deduplicatedJobId"));
            assertEquals("d1", queue.getJob(first.id()).deduplicationId());
            assertEquals("d1", queue.getJob(first.id()).opts().deduplication().id());
        }
    }

    @Test
    void aTtlWindowOutlivesTheJobAndRemovingTheKeyEndsIt() {
        String q = queueName("dedup-ttl");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("t1").ttl(Duration.ofSeconds(30)).build();
            Job first = queue.add("a", Map.of(), dedup(d));
            long ttl = redis().pttl(key(q, "de:t1"));
            assertTrue(ttl > 25_000 && ttl <= 30_000, "PX ttl, was " + ttl);
            Job active = activate(queue, "tok-1");
            finish(queue, active, true, "1");
            assertEquals(first.id(), redis().get(key(q, "de:t1")), "a throttle window outlives its job");
            assertEquals(first.id(), queue.add("a", Map.of(), dedup(d)).id());
            assertEquals(first.id(), queue.getDebounceJobId("t1"), "BullMQ's deprecated alias");
            assertTrue(queue.removeDeduplicationKey("t1"));
            assertFalse(queue.removeDebounceKey("t1"), "already gone");
            assertNull(queue.getDeduplicationJobId("t1"));
            Job third = queue.add("a", Map.of(), dedup(d));
            assertNotEquals(first.id(), third.id(), "a new window after the key is removed");
        }
    }

    @Test
    void extendRestartsTheTtlOnEveryDuplicate() {
        String q = queueName("dedup-extend");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("e1").ttl(Duration.ofSeconds(30)).extend(true).build();
            Job first = queue.add("a", Map.of(), dedup(d));
            redis().pexpire(key(q, "de:e1"), 10_000);
            assertEquals(first.id(), queue.add("a", Map.of(), dedup(d)).id());
            assertTrue(redis().pttl(key(q, "de:e1")) > 25_000, "the hit restarted the ttl");
            assertEquals(1, events(q, "deduplicated", first.id()).size());
        }
    }

    @Test
    void replaceSwapsAnOwnerThatIsStillDelayed() {
        String q = queueName("dedup-replace");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("r1").ttl(Duration.ofSeconds(30)).extend(true).replace(true)
                    .build();
            Job first = queue.add("a", Map.of("v", 1), dedup(d, Duration.ofSeconds(10)));
            Job second = queue.add("a", Map.of("v", 2), dedup(d, Duration.ofSeconds(10)));
            assertNotEquals(first.id(), second.id(), "the new job replaces the delayed one (debounce)");
            assertTrue(hash(q, first.id()).isEmpty(), "the replaced job is gone");
            assertEquals(List.of(second.id()), redis().zrange(key(q, "delayed"), 0, -1));
            assertEquals(second.id(), redis().get(key(q, "de:r1")));
            assertEquals(1, events(q, "removed", first.id()).size());
            assertEquals("delayed", events(q, "removed", first.id()).get(0).get("prev"));
            Map<String, String> ev = events(q, "deduplicated", null).get(0);
            assertEquals(second.id(), ev.get("jobId"), "replace names the new job as kept");
            assertEquals(first.id(), ev.get("deduplicatedJobId"));
        }
    }

    @Test
    void replaceKeepsAnOwnerThatIsNoLongerDelayed() {
        String q = queueName("dedup-replace-wait");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("r2").replace(true).build();
            Job first = queue.add("a", Map.of(), dedup(d));
            assertEquals(first.id(), queue.add("a", Map.of(), dedup(d)).id());
            assertEquals(1, redis().llen(key(q, "wait")));
            assertTrue(events(q, "deduplicated", null).isEmpty(), "no event, as BullMQ");
        }
    }

    @Test
    void rescheduleMovesTheDelayedOwnerToTheNewDelay() {
        String q = queueName("dedup-resched");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("s1").reschedule(true).build();
            Job first = queue.add("a", Map.of("v", 1), dedup(d, Duration.ofHours(1)));
            Job second = queue.add("a", Map.of("v", 2), dedup(d, Duration.ofSeconds(5)));
            assertEquals(first.id(), second.id(), "the owner is kept with its id and data");
            assertEquals("{\"v\":1}", hash(q, first.id()).get("data"));
            assertEquals("5000", hash(q, first.id()).get("delay"));
            long due = (long) (redis().zscore(key(q, "delayed"), first.id()) / 4096);
            long expected = System.currentTimeMillis() + 5000;
            assertTrue(Math.abs(due - expected) < 2000, "due in about 5 s, was " + (due - expected + 5000));
        }
    }

    @Test
    void withoutTtlTheKeyLastsUntilTheOwnerFinishes() {
        String q = queueName("dedup-finish");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("a", Map.of(), dedup(Deduplication.of("f1")));
            Job active = activate(queue, "tok-1");
            assertEquals(first.id(), queue.add("a", Map.of(), dedup(Deduplication.of("f1"))).id(),
                    "still deduplicated while active");
            finish(queue, active, false, "boom");
            assertNull(redis().get(key(q, "de:f1")), "released when the owner finally failed");
            Job next = queue.add("a", Map.of(), dedup(Deduplication.of("f1")));
            assertNotEquals(first.id(), next.id());
            // removing the finished first job must not touch the newer owner's key
            assertTrue(queue.remove(first.id()));
            assertEquals(next.id(), redis().get(key(q, "de:f1")));
            assertTrue(queue.remove(next.id()));
            assertNull(redis().get(key(q, "de:f1")), "removing the owner removes its key");
        }
    }

    @Test
    void jobRemoveDeduplicationKeyOnlyForItsOwner() {
        String q = queueName("dedup-jobkey");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("a", Map.of(), dedup(Deduplication.of("j1")));
            redis().set(key(q, "de:j1"), "someone-else");
            assertFalse(first.removeDeduplicationKey(), "another job owns the key");
            assertEquals("someone-else", redis().get(key(q, "de:j1")));
            redis().set(key(q, "de:j1"), first.id());
            assertTrue(first.removeDeduplicationKey());
            assertNull(redis().get(key(q, "de:j1")));
            assertFalse(queue.add("plain", Map.of()).removeDeduplicationKey(), "no deduplication id");
        }
    }

    @Test
    void aStaleKeyWhoseOwnerIsGoneIsRecovered() {
        String q = queueName("dedup-stale");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("a", Map.of(), dedup(Deduplication.of("x1")));
            redis().del(key(q, first.id())); // the owner's hash lost, e.g. in an outage
            Job next = queue.add("a", Map.of(), dedup(Deduplication.of("x1")));
            assertNotEquals(first.id(), next.id());
            assertEquals(next.id(), redis().get(key(q, "de:x1")));
        }
    }

    @Test
    void keepLastIfActiveCreatesTheLatestAddWhenTheOwnerCompletes() {
        String q = queueName("dedup-keeplast");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("k1").keepLastIfActive(true).ttl(Duration.ofSeconds(30)).build();
            Job first = queue.add("a", Map.of("v", 1), dedup(d));
            assertEquals(-1, redis().pttl(key(q, "de:k1")), "keepLastIfActive ignores the ttl");
            Job active = activate(queue, "tok-1");
            assertEquals(first.id(), queue.add("a", Map.of("v", 2), dedup(d)).id());
            assertEquals(first.id(), queue.add("a", Map.of("v", 3), dedup(d)).id());
            assertEquals(0, redis().llen(key(q, "wait")), "never a second job while the owner runs");
            Map<String, String> next = redis().hgetall(key(q, "dn:k1"));
            assertEquals("{\"v\":3}", next.get("data"), "the latest add wins");
            assertEquals(2, events(q, "deduplicated", first.id()).size());
            finish(queue, active, true, "1");
            assertFalse(redis().exists(key(q, "dn:k1")) > 0);
            List<String> wait = redis().lrange(key(q, "wait"), 0, -1);
            assertEquals(1, wait.size(), "the kept add became a job");
            String nextId = wait.get(0);
            assertEquals(next.get("jid"), nextId, "with the id it was given at its add");
            assertEquals("{\"v\":3}", hash(q, nextId).get("data"));
            assertEquals("k1", hash(q, nextId).get("deid"));
            assertEquals(nextId, redis().get(key(q, "de:k1")), "and owns the window now");
            assertEquals(1, events(q, "waiting", nextId).size());
        }
    }

    @Test
    void keepLastIfActiveWaitsForTheLastAttempt() {
        String q = queueName("dedup-keeplast-retry");
        try (Queue queue = new Queue(q, queueOptions())) {
            Deduplication d = Deduplication.builder("k2").keepLastIfActive(true).build();
            JobOptions opts = JobOptions.builder().deduplication(d).attempts(2).jobId("custom-a").build();
            queue.add("a", Map.of("v", 1), opts);
            Job active = activate(queue, "tok-1");
            queue.add("a", Map.of("v", 2), JobOptions.builder().deduplication(d).jobId("custom-b").build());
            // a retried attempt goes back to wait: the kept add waits for the final outcome
            queue.context().await(io.bull4j.internal.script.RetryJob.run(queue.context().scripts(),
                    queue.context().keys, active.id(), active.token(), "boom", "[]", System.currentTimeMillis()),
                    "retryJob");
            assertTrue(redis().exists(key(q, "dn:k2")) > 0);
            assertFalse(redis().exists(key(q, "custom-b")) > 0);
            Job again = activate(queue, "tok-2");
            finish(queue, again, false, "boom");
            assertEquals(List.of("custom-b"), redis().lrange(key(q, "wait"), 0, -1),
                    "created after the last attempt, with its custom id");
            assertEquals("custom-b", redis().get(key(q, "de:k2")));
        }
    }

    @Test
    void badDeduplicationOptionsAreRefusedNamingTheField() {
        ValidationException e = assertThrows(ValidationException.class, () -> Deduplication.of(""));
        assertTrue(e.getMessage().contains("deduplication.id"));
        e = assertThrows(ValidationException.class,
                () -> Deduplication.builder("x").ttl(Duration.ZERO));
        assertTrue(e.getMessage().contains("deduplication.ttl"));
        e = assertThrows(ValidationException.class,
                () -> Deduplication.builder("x").ttl(Duration.ofNanos(1_500_000)));
        assertTrue(e.getMessage().contains("deduplication.ttl"));
        try (Queue queue = new Queue(queueName("dedup-bad"), queueOptions())) {
            assertThrows(ValidationException.class, () -> queue.getDeduplicationJobId(""));
            assertThrows(ValidationException.class, () -> queue.removeDeduplicationKey(null));
        }
    }

    @Test
    void queueEventsDeliversTheDeduplicatedEventTyped() throws Exception {
        String q = queueName("dedup-qe");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions());
             QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection())
                     .lastEventId("0-0").build())) {
            events.addListener(rec);
            Job owner = queue.add("a", Map.of(), dedup(Deduplication.of("qe1")));
            queue.add("a", Map.of(), dedup(Deduplication.of("qe1")));
            QueueEvent e = rec.await(QueueEvent.Type.DEDUPLICATED, owner.id());
            assertEquals("qe1", e.deduplicationId());
            assertEquals("2", e.deduplicatedJobId());
            assertEquals(owner.id(), e.jobId());
        }
    }
}
