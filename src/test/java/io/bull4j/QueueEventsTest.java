package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** QueueEvents itself: where it starts, replay, listeners, lifecycle, prompt close, reconnects. */
class QueueEventsTest {

    private static QueueEventsOptions.Builder eventsOptions() {
        return QueueEventsOptions.builder().connection(connection());
    }

    private static String clientName(String q) {
        return "bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8)) + ":qe";
    }

    /** CLIENT LIST lines of the reader's connection (by BullMQ's client name). */
    private static List<String> readerClients(String q) {
        return Arrays.stream(redis().clientList().split("\n")).filter(l -> l.contains(" name=" + clientName(q) + " "))
                .toList();
    }

    private static boolean readerBlocked(String q) {
        return readerClients(q).stream().anyMatch(l -> l.contains("cmd=xread") && l.matches(".*flags=\\S*b.*"));
    }

    @Test
    void startsWithNewEventsOnlyByDefault() throws Exception {
        String q = queueName("qe-new");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job before = queue.add("before", Map.of());
            try (QueueEvents events = new QueueEvents(q, eventsOptions().build())) {
                events.addListener(rec);
                assertTrue(events.isRunning());
                Job after = queue.add("after", Map.of());
                QueueEvent waiting = rec.await(WAITING, after.id());
                assertEquals(List.of(ADDED, WAITING), rec.typesOf(after.id()));
                assertEquals(List.of(), rec.typesOf(before.id()), "events from before the start are not replayed");
                TestSupport.eventually(Duration.ofSeconds(5), () -> waiting.id().equals(events.lastEventId()),
                        "lastEventId follows the delivered events");
                rec.assertMatchesStream(q);
            }
        }
    }

    @Test
    void replaysFromAGivenLastEventId() throws Exception {
        String q = queueName("qe-replay");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job one = queue.add("one", Map.of());
            Job two = queue.add("two", Map.of());
            List<StreamMessage<String, String>> stream = redis().xrange("bull:" + q + ":events",
                    Range.create("-", "+"));
            String oneWaiting = stream.get(1).getId();
            assertEquals(one.id(), stream.get(1).getBody().get("jobId"));

            QueueEventsRecorder rec = new QueueEventsRecorder();
            try (QueueEvents events = new QueueEvents(q, eventsOptions().lastEventId(oneWaiting).autorun(false)
                    .build())) {
                events.addListener(rec);
                assertNull(events.lastEventId(), "not started");
                events.run();
                rec.await(WAITING, two.id());
                assertEquals(List.of(ADDED, WAITING), rec.typesOf(two.id()));
                assertEquals(List.of(), rec.typesOf(one.id()), "the start id itself is not delivered again");
                rec.assertMatchesStream(q);
            }

            QueueEventsRecorder all = new QueueEventsRecorder();
            try (QueueEvents events = new QueueEvents(q, eventsOptions().lastEventId("0").autorun(false).build())) {
                events.addListener(all);
                events.run();
                all.await(WAITING, two.id());
                assertEquals(stream.size(), all.events().size(), "\"0\" replays the whole stream");
                all.assertMatchesStream(q);
            }
        }
    }

    @Test
    void closeIsPromptDuringABlockedRead() throws Exception {
        String q = queueName("qe-close");
        QueueEvents events = new QueueEvents(q, eventsOptions().blockTimeout(Duration.ofSeconds(10)).build());
        try {
            eventually(Duration.ofSeconds(10), () -> readerBlocked(q), "the reader blocked in XREAD, named as BullMQ");
            assertThrows(Bull4jException.class, events::run, "already running");
        } finally {
            long start = System.nanoTime();
            events.close();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(took.compareTo(Duration.ofSeconds(2)) < 0, "close took " + took);
        }
        assertFalse(events.isRunning());
        eventually(Duration.ofSeconds(5), () -> readerClients(q).isEmpty(), "the reader's connection closed");
        events.close(); // idempotent
        assertThrows(Bull4jException.class, events::run, "closed");
    }

    @Test
    void typedRegistrationsAndRemoval() throws Exception {
        String q = queueName("qe-typed");
        QueueEventsRecorder completedOnly = new QueueEventsRecorder();
        QueueEventsRecorder all = new QueueEventsRecorder();
        QueueEventsRecorder removed = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions());
             QueueEvents events = new QueueEvents(q, eventsOptions().build())) {
            events.on(COMPLETED, completedOnly).addListener(all).addListener(removed);
            events.removeListener(removed);
            Job job = JobOpsFixtures.finished(queue, "j", true, "\"v\"");
            assertEquals("\"v\"", completedOnly.await(COMPLETED, job.id()).returnValueJson());
            all.await(COMPLETED, job.id());
            assertEquals(List.of(COMPLETED), completedOnly.events().stream().map(QueueEvent::type).toList());
            assertEquals(List.of(ADDED, WAITING, ACTIVE, COMPLETED), all.typesOf(job.id()));
            assertEquals(List.of(), removed.events());
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneaky(Throwable t) throws T {
        throw (T) t;
    }

    @Test
    void aThrowingListenerIsIsolated() throws Exception {
        String q = queueName("qe-throws");
        AtomicInteger thrown = new AtomicInteger();
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions());
             QueueEvents events = new QueueEvents(q, eventsOptions().build())) {
            events.addListener(e -> {
                // a runtime exception, an Error and a checked exception thrown sneakily (as from Kotlin): none
                // may end the reader
                switch (thrown.incrementAndGet() % 3) {
                    case 1 -> throw new IllegalStateException("listener bug");
                    case 2 -> throw new StackOverflowError("listener recursion");
                    default -> QueueEventsTest.<RuntimeException>sneaky(new java.io.IOException("listener I/O"));
                }
            }).addListener(rec);
            Job a = queue.add("a", Map.of());
            Job b = queue.add("b", Map.of());
            rec.await(WAITING, b.id());
            assertEquals(List.of(ADDED, WAITING), rec.typesOf(a.id()));
            assertEquals(4, thrown.get(), "the throwing listener got every event too");
            assertTrue(events.isRunning());
        }
    }

    @Test
    void aKilledConnectionIsReplacedWithoutLosingEvents() throws Exception {
        String q = queueName("qe-kill");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions());
             QueueEvents events = new QueueEvents(q, eventsOptions().blockTimeout(Duration.ofMillis(500)).build())) {
            events.addListener(rec);
            Job first = queue.add("first", Map.of());
            rec.await(WAITING, first.id());
            eventually(Duration.ofSeconds(10), () -> readerBlocked(q), "the reader blocked");
            String id = readerClients(q).get(0).replaceAll("^id=(\\d+) .*", "$1");
            assertEquals(1L, redis().clientKill(io.lettuce.core.KillArgs.Builder.id(Long.parseLong(id))));
            Job second = queue.add("second", Map.of());
            rec.await(WAITING, second.id());
            // Lettuce reconnects on its own and re-sends the read, but without the client name: count blocked reads
            eventually(Duration.ofSeconds(10), () -> Arrays.stream(redis().clientList().split("\n"))
                    .anyMatch(l -> l.contains("cmd=xread") && l.matches(".*flags=\\S*b.*")), "reading again");
            assertEquals(List.of(ADDED, WAITING), rec.typesOf(second.id()));
            rec.assertMatchesStream(q);
        }
    }

    @Test
    void readsOnAfterRedisComesBack() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), Duration.ofSeconds(2))) {
            String q = queueName("qe-down");
            QueueEventsRecorder rec = new QueueEventsRecorder();
            CompletableFuture<Throwable> error = new CompletableFuture<>();
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build());
                 QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(conn)
                         .blockTimeout(Duration.ofMillis(500)).build())) {
                events.addListener(new QueueEventListener() {
                    @Override
                    public void onEvent(QueueEvent event) {
                        rec.onEvent(event);
                    }

                    @Override
                    public void onError(Throwable e) {
                        error.complete(e);
                    }
                });
                rec.await(WAITING, queue.add("before", Map.of()).id());
                server.kill();
                assertInstanceOf(RedisException.class, await(error), "the failed read is reported");
                assertTrue(events.isRunning());
                server.restart();
                // the restarted server is empty, so its stream ids start later than the last one read; until the
                // connection is back, adds are refused as not applied, which is safe to retry
                AtomicReference<Job> added1 = new AtomicReference<>();
                eventually(Duration.ofSeconds(15), () -> {
                    try {
                        added1.set(queue.add("after", Map.of()));
                        return true;
                    } catch (RedisNotAppliedException notYet) {
                        return false;
                    }
                }, "an add succeeds once Redis is back");
                Job after = added1.get();
                assertEquals("1", after.id(), "a fresh dataset");
                QueueEvent added = rec.await(e -> e.type() == ADDED && e.jobName().equals("after"), "added after");
                assertEquals("1", added.jobId());
            }
        }
    }

    @Test
    void eventsBull4jDoesNotWriteAreTypedToo() throws Exception {
        String q = queueName("qe-raw");
        String key = "bull:" + q + ":events";
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (QueueEvents events = new QueueEvents(q, eventsOptions().build())) {
            events.addListener(rec);
            // laid out as BullMQ writes them (deduplication, flows, QueueEventsProducer)
            redis().xadd(key, Map.of("event", "deduplicated", "jobId", "5", "deduplicationId", "dd1",
                    "deduplicatedJobId", "6"));
            redis().xadd(key, Map.of("event", "waiting-children", "jobId", "p1"));
            redis().xadd(key, Map.of("event", "waiting-children", "jobId", "p2", "prev", "active"));
            redis().xadd(key, Map.of("event", "removed", "jobId", "7", "prev", "unknown"));
            String custom = redis().xadd(key, Map.of("event", "invoice-sent", "invoice", "42"));

            QueueEvent dedup = rec.await(DEDUPLICATED, "5");
            assertEquals("dd1", dedup.deduplicationId());
            assertEquals("6", dedup.deduplicatedJobId());
            assertNull(rec.await(WAITING_CHILDREN, "p1").prev());
            assertEquals(JobState.ACTIVE, rec.await(WAITING_CHILDREN, "p2").prev());
            assertEquals(JobState.UNKNOWN, rec.await(REMOVED, "7").prev());
            QueueEvent other = rec.await(CUSTOM, null);
            assertEquals("invoice-sent", other.eventName());
            assertEquals(Map.of("invoice", "42"), other.fields());
            assertEquals(custom, other.id());
            assertEquals(Instant.ofEpochMilli(Long.parseLong(custom.split("-")[0])), other.timestamp());
            assertNull(other.jobId());
            assertNull(other.returnValueJson());
            assertNull(other.returnValue(Map.class));
            assertNull(other.delay());
            assertEquals(0, other.count());
            rec.assertMatchesStream(q);
        }
    }

    @Test
    void everyTypeHasBullmqsWireName() {
        assertEquals("retries-exhausted", RETRIES_EXHAUSTED.wireName());
        assertEquals("waiting-children", WAITING_CHILDREN.wireName());
        for (QueueEvent.Type t : QueueEvent.Type.values()) {
            if (t != CUSTOM) {
                assertEquals(t, QueueEvent.Type.fromWireName(t.wireName()));
                assertEquals(t.name().toLowerCase().replace('_', '-'), t.wireName());
            }
        }
        assertEquals(CUSTOM, QueueEvent.Type.fromWireName("debounced"));
        assertEquals(17, QueueEvent.Type.values().length - 1, "the 17 events BullMQ 6.7 writes");
    }

    @Test
    void optionsAreValidated() {
        assertEquals("lastEventId", assertThrows(ValidationException.class,
                () -> QueueEventsOptions.builder().lastEventId("latest")).field());
        assertEquals("lastEventId", assertThrows(ValidationException.class,
                () -> QueueEventsOptions.builder().lastEventId(null)).field());
        assertEquals("blockTimeout", assertThrows(ValidationException.class,
                () -> QueueEventsOptions.builder().blockTimeout(Duration.ZERO)).field());
        assertEquals("prefix", assertThrows(ValidationException.class,
                () -> QueueEventsOptions.builder().prefix("")).field());
        assertEquals("options", assertThrows(ValidationException.class, () -> new QueueEvents("q", null)).field());
        assertEquals("queueName", assertThrows(ValidationException.class,
                () -> new QueueEvents("a:b", eventsOptions().build())).field());
        QueueEventsOptions d = QueueEventsOptions.DEFAULTS;
        assertEquals("$", d.lastEventId());
        assertEquals(Duration.ofSeconds(10), d.blockTimeout());
        assertTrue(d.autorun());
        assertEquals("bull", d.prefix());
        QueueEventsOptions custom = d.toBuilder().lastEventId("1700000000000-3").build();
        assertEquals(custom, custom.toBuilder().build());
        assertNotEquals(d, custom);
        assertTrue(custom.toString().contains("lastEventId=1700000000000-3"));
    }

    /**
     * A listener that leaves its thread's interrupt flag set (a catch of InterruptedException that restores it)
     * stopped the reader for good: every read after it failed at once, and the loop took the interrupt for a stop.
     */
    @Test
    void aListenerLeavingTheInterruptFlagSetDoesNotStopTheReader() throws Exception {
        String q = queueName("events-interrupt");
        List<QueueEvent> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Queue queue = new Queue(q, queueOptions());
             QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection()).build())) {
            events.addListener(e -> {
                seen.add(e);
                if ("poison".equals(e.jobName())) {
                    Thread.currentThread().interrupt();
                }
            });
            String poison = queue.add("poison", Map.of()).id();
            eventually(Duration.ofSeconds(10), () -> seen.stream().anyMatch(e -> poison.equals(e.jobId())),
                    "the first event");
            String after = queue.add("after", Map.of()).id();
            eventually(Duration.ofSeconds(10), () -> seen.stream().anyMatch(e -> after.equals(e.jobId())),
                    "events after the interrupt");
            assertTrue(events.isRunning());
        }
    }

    /** A shared connection closed before the QueueEvents on it: the reader stops, after one error, instead of retrying. */
    @Test
    void aReaderWhoseSharedConnectionIsClosedStops() throws Exception {
        String q = queueName("events-closed-conn");
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        Bull4jConnection conn = Bull4jConnection.create(RedisTestServer.get().bull4jUri());
        try (QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(conn).build())) {
            events.addListener(new QueueEventListener() {
                @Override
                public void onEvent(QueueEvent e) {
                }

                @Override
                public void onError(Throwable t) {
                    errors.add(t);
                }
            });
            // blocked in its XREAD on its own connection (named as BullMQ names it), which the close must end
            String name = "name=bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8)) + ":qe ";
            eventually(Duration.ofSeconds(10), () -> redis().clientList().lines()
                    .anyMatch(l -> l.contains(name) && l.contains("cmd=xread")), "reading");
            conn.close();
            eventually(Duration.ofSeconds(10), () -> !events.isRunning(), "the reader stopped");
            assertEquals(1, errors.size(), errors.toString());
        }
    }
}
