package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.script.MoveToActive;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.bull4j.QueueEvent.Type.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Every transition bull4j makes reaches a QueueEvents listener, with the fields BullMQ's readers expect. */
class QueueEventsTransitionsTest {

    private static QueueEventsOptions eventsOptions() {
        return QueueEventsOptions.builder().connection(connection()).build();
    }

    @Test
    void producerEvents() throws Exception {
        String q = queueName("qe-producer");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = new QueueEvents(q, eventsOptions())) {
            events.addListener(rec);
            Job plain = queue.add("plain", Map.of("a", 1));
            QueueEvent added = rec.await(ADDED, plain.id());
            assertEquals("plain", added.jobName());
            assertNull(rec.await(WAITING, plain.id()).prev(), "a new job's waiting has no prev");

            Job later = queue.add("later", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(1)).build());
            QueueEvent delayed = rec.await(DELAYED, later.id());
            assertEquals(later.timestamp().plus(Duration.ofMinutes(1)), delayed.delay(), "the due time");
            later.promote();
            QueueEvent promoted = rec.await(e -> e.type() == WAITING && later.id().equals(e.jobId())
                    && e.prev() != null, "waiting after promote");
            assertEquals(JobState.DELAYED, promoted.prev());

            queue.add("again", Map.of(), JobOptions.builder().jobId("custom-1").build());
            queue.add("again", Map.of(), JobOptions.builder().jobId("custom-1").build());
            assertEquals("custom-1", rec.await(DUPLICATED, "custom-1").jobId());

            assertTrue(plain.remove());
            assertEquals(JobState.WAITING, rec.await(REMOVED, plain.id()).prev());

            queue.pause();
            QueueEvent paused = rec.await(PAUSED, null);
            assertNull(paused.jobId());
            queue.resume();
            rec.await(RESUMED, null);

            assertEquals(List.of(ADDED, WAITING, REMOVED), rec.typesOf(plain.id()));
            assertEquals(List.of(ADDED, DELAYED, WAITING), rec.typesOf(later.id()));
            rec.assertMatchesStream(q);
        }
    }

    @Test
    void workerEvents() throws Exception {
        String q = queueName("qe-worker");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = new QueueEvents(q, eventsOptions())) {
            events.addListener(rec);
            Job good = queue.add("good", Map.of());
            Job bad = queue.add("bad", Map.of());
            try (Worker worker = new Worker(q, job -> {
                if (job.name().equals("bad")) {
                    throw new IllegalStateException("boom");
                }
                job.updateProgress(Map.of("pct", 50));
                return Map.of("ok", true, "n", 3);
            }, workerOptions().build())) {
                assertEquals(JobState.WAITING, rec.await(ACTIVE, good.id()).prev());
                QueueEvent progress = rec.await(PROGRESS, good.id());
                assertEquals("{\"pct\":50}", progress.progressJson());
                assertEquals(Map.of("pct", 50), progress.progress());
                QueueEvent completed = rec.await(COMPLETED, good.id());
                assertEquals(Json.tree("{\"ok\":true,\"n\":3}"), Json.tree(completed.returnValueJson()));
                assertEquals(Map.of("ok", true, "n", 3), completed.returnValue(Map.class));
                assertEquals(JobState.ACTIVE, completed.prev());

                QueueEvent failed = rec.await(FAILED, bad.id());
                assertEquals("boom", failed.failedReason());
                assertEquals(JobState.ACTIVE, failed.prev());
                assertEquals(1, rec.await(RETRIES_EXHAUSTED, bad.id()).attemptsMade());
                QueueEvent drained = rec.await(DRAINED, null);
                assertNull(drained.jobId());
                assertTrue(drained.fields().isEmpty());
            }
            queue.getJob(bad.id()).retry();
            QueueEvent retried = rec.await(e -> e.type() == WAITING && bad.id().equals(e.jobId())
                    && e.prev() != null, "waiting after retry");
            assertEquals(JobState.FAILED, retried.prev());

            assertEquals(List.of(ADDED, WAITING, ACTIVE, PROGRESS, COMPLETED), rec.typesOf(good.id()));
            assertTrue(rec.threads().stream().allMatch(t -> t.equals("bull4j-queue-events-" + q)),
                    "listeners run on the reader's thread: " + rec.threads());
            rec.assertMatchesStream(q);
        }
    }

    @Test
    void stalledEvents() throws Exception {
        String q = queueName("qe-stalled");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions()); QueueEvents events = new QueueEvents(q, eventsOptions())) {
            events.addListener(rec);
            queue.add("j", Map.of());
            // a worker that died holding the job: active, lock gone
            QueueContext ctx = queue.context();
            String id = ctx.await(MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), "dead:1", 30_000, null),
                    "moveToActive").id();
            redis().del(ctx.keys.lock(id));
            try (Worker worker = new Worker(q, j -> "again",
                    workerOptions().stalledInterval(Duration.ofMillis(500)).build())) {
                assertEquals(id, rec.await(STALLED, id).jobId());
                rec.await(COMPLETED, id);
            }
            assertEquals(List.of(ADDED, WAITING, ACTIVE, WAITING, STALLED, ACTIVE, COMPLETED), rec.typesOf(id));
            assertEquals(JobState.ACTIVE, rec.events().stream().filter(e -> e.type() == WAITING && id.equals(e.jobId()))
                    .skip(1).findFirst().orElseThrow().prev(), "back to waiting from active");
            rec.assertMatchesStream(q);
        }
    }

    @Test
    void cleanedEvent() throws Exception {
        String q = queueName("qe-cleaned");
        QueueEventsRecorder rec = new QueueEventsRecorder();
        try (Queue queue = new Queue(q, queueOptions())) {
            JobOpsFixtures.finished(queue, "a", true, "1");
            JobOpsFixtures.finished(queue, "b", true, "2");
            try (QueueEvents events = new QueueEvents(q, eventsOptions())) {
                events.addListener(rec);
                assertEquals(2, queue.clean(Duration.ZERO, 0, JobState.COMPLETED).size());
                QueueEvent cleaned = rec.await(CLEANED, null);
                assertEquals(2, cleaned.count());
                assertNull(cleaned.jobId());
                assertEquals(List.of(CLEANED), rec.events().stream().map(QueueEvent::type).toList(),
                        "only what was written after the reader started");
                rec.assertMatchesStream(q);
            }
        }
    }
}
