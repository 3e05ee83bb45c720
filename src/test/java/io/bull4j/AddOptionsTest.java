package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.ScoredValue;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Job options on add: what each one stores in Redis, byte for byte as BullMQ lays it out. */
class AddOptionsTest {
    private static final long TWO_32 = 4294967296L;

    @Test
    void customJobIdIsIdempotent() throws Exception {
        String q = queueName("jobid");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("a", Map.of("v", 1), JobOptions.builder().jobId("order-7").build());
            assertEquals("order-7", first.id());
            assertEquals(1, idCounter(q));

            Job second = queue.add("b", Map.of("v", 2), JobOptions.builder().jobId("order-7").build());
            assertEquals("order-7", second.id());
            assertEquals("a", second.name(), "the existing job is returned");
            assertEquals(Map.of("v", 1), second.data());
            assertEquals(2, idCounter(q), "every add INCRs the id counter, as in BullMQ");
            assertEquals("{\"v\":1}", hash(q, "order-7").get("data"), "nothing was overwritten");
            assertEquals(List.of("order-7"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(List.of("added", "waiting", "duplicated"), eventNames(q, "order-7"));
            JsonNode opts = json(hash(q, "order-7").get("opts"));
            assertEquals("order-7", opts.get("jobId").asText());
        }
    }

    @Test
    void delayedJobIsScoredMarkedAndProcessedOnlyWhenDue() throws Exception {
        String q = queueName("delay");
        try (Queue queue = new Queue(q, queueOptions())) {
            long ts = System.currentTimeMillis();
            JobOptions o = JobOptions.builder().delay(Duration.ofMillis(1500)).timestamp(Instant.ofEpochMilli(ts))
                    .build();
            Job a = queue.add("d", Map.of(), o);
            Job b = queue.add("d", Map.of(), o);
            long due = ts + 1500;
            assertEquals(due * 4096, redis().zscore(key(q, "delayed"), a.id()).longValue());
            assertEquals(due * 4096 + 1, redis().zscore(key(q, "delayed"), b.id()).longValue(),
                    "FIFO within a millisecond");
            assertEquals(due, redis().zscore(key(q, "marker"), "1").longValue());
            assertNull(redis().zscore(key(q, "marker"), "0"), "nothing is ready yet");
            assertEquals(0, redis().llen(key(q, "wait")));
            assertEquals("1500", hash(q, a.id()).get("delay"));
            assertEquals(Long.toString(ts), hash(q, a.id()).get("timestamp"));
            assertEquals(1500, json(hash(q, a.id()).get("opts")).get("delay").asLong());
            Map<String, String> delayed = events(q, "delayed", a.id()).get(0);
            assertEquals(Long.toString(due), delayed.get("delay"), "the delayed event carries the absolute due time");
            assertEquals(List.of("added", "delayed"), eventNames(q, a.id()));

            CompletableFuture<Long> startedAt = new CompletableFuture<>();
            Worker worker = new Worker(q, job -> {
                startedAt.complete(System.currentTimeMillis());
                return null;
            }, workerOptions().build());
            try {
                long started = await(startedAt);
                assertTrue(started >= due, "processed " + (due - started) + " ms before it was due");
                eventually(Duration.ofSeconds(10), () -> redis().zcard(key(q, "completed")) == 2, "both completed");
            } finally {
                worker.close();
            }
            assertTrue(Long.parseLong(hash(q, a.id()).get("processedOn")) >= due);
            assertEquals("0", hash(q, a.id()).get("delay"), "promotion resets the delay field");
            assertEquals(List.of("added", "delayed", "waiting", "active", "completed"), eventNames(q, a.id()));
            assertEquals("delayed", events(q, "waiting", a.id()).get(0).get("prev"));
        }
    }

    @Test
    void bulkDelayedJobsKeepFifoWithinAMillisecondAndMarkTheEarliest() throws Exception {
        String q = queueName("bulk-delay");
        try (Queue queue = new Queue(q, queueOptions())) {
            long ts = System.currentTimeMillis();
            JobOptions late = JobOptions.builder().delay(Duration.ofMillis(9000)).timestamp(Instant.ofEpochMilli(ts))
                    .build();
            JobOptions early = JobOptions.builder().delay(Duration.ofMillis(5000))
                    .timestamp(Instant.ofEpochMilli(ts)).build();
            Job before = queue.add("d", Map.of(), late); // already in that millisecond before the bulk add
            List<Job> bulk = queue.addBulk(List.of(BulkJob.of("d", Map.of(), late), BulkJob.of("d", Map.of(), late),
                    BulkJob.of("d", Map.of(), early), BulkJob.of("d", Map.of(), late)));
            long lateDue = (ts + 9000) * 4096;
            assertEquals(lateDue, redis().zscore(key(q, "delayed"), before.id()).longValue());
            assertEquals(lateDue + 1, redis().zscore(key(q, "delayed"), bulk.get(0).id()).longValue());
            assertEquals(lateDue + 2, redis().zscore(key(q, "delayed"), bulk.get(1).id()).longValue());
            assertEquals((ts + 5000) * 4096, redis().zscore(key(q, "delayed"), bulk.get(2).id()).longValue());
            assertEquals(lateDue + 3, redis().zscore(key(q, "delayed"), bulk.get(3).id()).longValue(),
                    "a due time seen earlier in the same call continues after its last job");
            assertEquals(List.of("1"), redis().zrange(key(q, "marker"), 0, -1), "one delay marker, nothing ready");
            assertEquals(ts + 5000, redis().zscore(key(q, "marker"), "1").longValue(), "it names the earliest job");
            for (Job j : bulk) {
                assertEquals(List.of("added", "delayed"), eventNames(q, j.id()));
            }
        }
    }

    @Test
    void priorityIsStrictAndFifoWithinAPriority() throws Exception {
        String q = queueName("prio");
        try (Queue queue = new Queue(q, queueOptions())) {
            int[] priorities = {3, 1, 2, 1, 3};
            for (int i = 0; i < priorities.length; i++) {
                queue.add("p" + i, Map.of(), JobOptions.builder().priority(priorities[i]).build());
            }
            queue.add("none", Map.of());
            assertEquals(3 * TWO_32 + 1, redis().zscore(key(q, "prioritized"), "1").longValue());
            assertEquals(1 * TWO_32 + 2, redis().zscore(key(q, "prioritized"), "2").longValue());
            assertEquals(1 * TWO_32 + 4, redis().zscore(key(q, "prioritized"), "4").longValue());
            assertEquals("5", redis().get(key(q, "pc")));
            assertEquals(List.of("6"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals("3", hash(q, "1").get("priority"));
            assertEquals(3, json(hash(q, "1").get("opts")).get("priority").asInt());

            List<String> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            Worker worker = new Worker(q, job -> order.add(job.name()), workerOptions().concurrency(1).build());
            try {
                eventually(Duration.ofSeconds(10), () -> redis().zcard(key(q, "completed")) == 6, "all completed");
            } finally {
                worker.close();
            }
            assertEquals(List.of("none", "p1", "p3", "p2", "p0", "p4"), order);
            assertEquals(0, redis().exists(key(q, "pc")), "the counter is dropped when prioritized empties");
        }
    }

    @Test
    void lifoJobsAreTakenNewestFirst() throws Exception {
        String q = queueName("lifo");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("fifo", Map.of());
            queue.add("l1", Map.of(), JobOptions.builder().lifo(true).build());
            queue.add("l2", Map.of(), JobOptions.builder().lifo(true).build());
            assertEquals(List.of("1", "2", "3"), redis().lrange(key(q, "wait"), 0, -1));
            assertTrue(json(hash(q, "2").get("opts")).get("lifo").asBoolean());

            List<String> order = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            Worker worker = new Worker(q, job -> order.add(job.name()), workerOptions().build());
            try {
                eventually(Duration.ofSeconds(10), () -> redis().zcard(key(q, "completed")) == 3, "all completed");
            } finally {
                worker.close();
            }
            assertEquals(List.of("l2", "l1", "fifo"), order);
        }
    }

    @Test
    void attemptsTimestampAndKeepLogsAreStored() throws Exception {
        String q = queueName("opts");
        try (Queue queue = new Queue(q, queueOptions())) {
            Instant ts = Instant.ofEpochMilli(1_700_000_000_123L);
            Job job = queue.add("o", Map.of(), JobOptions.builder().attempts(4).timestamp(ts).keepLogs(2)
                    .stackTraceLimit(3).backoff(Backoff.fixed(Duration.ofSeconds(1))).build());
            Map<String, String> h = hash(q, job.id());
            assertEquals("1700000000123", h.get("timestamp"));
            JsonNode opts = json(h.get("opts"));
            assertEquals(4, opts.get("attempts").asInt());
            assertEquals(1_700_000_000_123L, opts.get("timestamp").asLong());
            assertEquals(2, opts.get("kl").asInt(), "keepLogs is stored compressed as kl");
            assertFalse(opts.has("keepLogs"));
            assertEquals(3, opts.get("stackTraceLimit").asInt());
            assertEquals("fixed", opts.get("backoff").get("type").asText());
            assertEquals(1000, opts.get("backoff").get("delay").asLong());
            assertEquals(4, job.opts().attempts());
            assertEquals(ts, job.timestamp());

            for (int i = 0; i < 5; i++) {
                queue.getJob(job.id()).log("line " + i);
            }
            assertEquals(List.of("line 3", "line 4"), redis().lrange(key(q, job.id() + ":logs"), 0, -1));
        }
    }

    @Test
    void sizeLimitRejectsOversizedDataBeforeWriting() throws Exception {
        String q = queueName("size");
        try (Queue queue = new Queue(q, queueOptions())) {
            // {"s":"ééé"} is 14 bytes of UTF-8 though 11 characters
            JobOptions limit = JobOptions.builder().sizeLimit(13).build();
            ValidationException e = assertThrows(ValidationException.class,
                    () -> queue.add("big", Map.of("s", "ééé"), limit));
            assertEquals("data", e.field());
            assertEquals(0, idCounter(q), "nothing was written");
            assertEquals(0, redis().exists(key(q, "1")));

            Job ok = queue.add("small", Map.of("s", "éé"), limit);
            assertEquals(13, json(hash(q, ok.id()).get("opts")).get("sizeLimit").asInt());
        }
    }

    @Test
    void queueDefaultJobOptionsAreMergedUnderTheJobsOwn() throws Exception {
        String q = queueName("defaults");
        JobOptions defaults = JobOptions.builder().attempts(3).removeOnComplete(true)
                .backoff(Backoff.exponential(Duration.ofMillis(100))).build();
        try (Queue queue = new Queue(q, queueOptions().toBuilder().defaultJobOptions(defaults).build())) {
            Job plain = queue.add("plain", Map.of());
            Job own = queue.add("own", Map.of(), JobOptions.builder().attempts(5).priority(2)
                    .removeOnComplete(false).build());
            JsonNode p = json(hash(q, plain.id()).get("opts"));
            assertEquals(3, p.get("attempts").asInt());
            assertTrue(p.get("removeOnComplete").asBoolean());
            assertEquals("exponential", p.get("backoff").get("type").asText());
            JsonNode o = json(hash(q, own.id()).get("opts"));
            assertEquals(5, o.get("attempts").asInt());
            assertEquals(2, o.get("priority").asInt());
            assertFalse(o.get("removeOnComplete").asBoolean());
            assertEquals("exponential", o.get("backoff").get("type").asText());
            assertEquals("2", hash(q, own.id()).get("priority"));
            List<ScoredValue<String>> prioritized = redis().zrangeWithScores(key(q, "prioritized"), 0, -1);
            assertEquals(1, prioritized.size());
            assertEquals(own.id(), prioritized.get(0).getValue());
        }
    }
}
