package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.BulkJob;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueEvent;
import io.bull4j.QueueEvents;
import io.bull4j.QueueEventsOptions;
import io.bull4j.ValidationException;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.interop.InteropDataRun.SCRIPTED;
import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Row 1b: custom job ids, addBulk, and re-adding an existing id from the other side. Both directions. */
class InteropDataIdsTest {
    /**
     * Ids bullmq accepts: its rule rejects only a string that is its own parseInt, and a ':' unless there are
     * exactly 3 segments. So zero-padded, "-0" and integers beyond 2^53 (snowflake ids) are custom ids too.
     */
    static final List<String> GOOD_IDS = List.of("order-42", "a:b:c", "x::y", "ünï-😀-𝄞", "with space", "007", "-0",
            "1234567890123456789", "12abc", "1e3", "+5");
    /** Ids both sides refuse, before writing anything. */
    static final List<String> BAD_IDS = List.of("42", "-5", "a:b", "a:b:c:d", ":", "9007199254740992", "NaN");

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void customIdsFromBullmqAreRunAndFoundByBull4j() throws Exception {
        String q = queueName("ids-n2j");
        List<Map<String, Object>> jobs = new ArrayList<>();
        GOOD_IDS.forEach(id -> jobs.add(job("n", Map.of("returns", id), Map.of("jobId", id))));
        List<JsonNode> added = node("add", q, jobs);
        assertEquals(GOOD_IDS, added.stream().map(a -> a.path("id").asText(a.toString())).toList());

        InteropDataRun run = InteropDataRun.runUntil(q, GOOD_IDS.size(), SCRIPTED, workerOptions().build());
        assertEquals(GOOD_IDS, run.startedIds(), "FIFO, by the ids bullmq gave");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (String id : GOOD_IDS) {
                Job job = queue.getJob(id);
                assertNotNull(job, id);
                assertEquals(id, job.id());
                assertEquals(id, job.opts().jobId(), "bull4j reads opts.jobId of " + id);
                assertEquals(JobState.COMPLETED, job.getState(), id);
                assertEquals(id, job.returnValue(String.class));
                assertNotNull(redis().zscore(key(q, "completed"), id), id);
            }
        }
        assertEquals(String.valueOf(GOOD_IDS.size()), redis().get(key(q, "id")), "every add counts");
    }

    @Test
    void customIdsFromBull4jAreRunAndFoundByBullmq() throws Exception {
        String q = queueName("ids-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (String id : GOOD_IDS) {
                assertEquals(id, queue.add("j", Map.of("returns", id), JobOptions.builder().jobId(id).build()).id());
            }
        }
        assertEquals(String.valueOf(GOOD_IDS.size()), redis().get(key(q, "id")), "every add counts");
        List<String> order = work(q, Map.of("count", GOOD_IDS.size())).stream().map(l -> l.get("id").asText()).toList();
        assertEquals(GOOD_IDS, order, "bullmq ran them FIFO under bull4j's ids");
        for (JsonNode seen : node("getJobs", q, GOOD_IDS)) {
            String id = seen.get("id").asText();
            assertEquals("completed", seen.path("state").asText(), seen::toString);
            assertEquals(id, seen.get("opts").get("jobId").asText());
            assertEquals(id, seen.get("returnvalue").asText());
        }
    }

    @Test
    void bothSidesRefuseTheSameBadIdsBeforeWritingAnything() {
        String q = queueName("ids-bad");
        List<Map<String, Object>> jobs = new ArrayList<>();
        BAD_IDS.forEach(id -> jobs.add(job("n", Map.of(), Map.of("jobId", id))));
        List<JsonNode> refused = node("add", q, jobs);
        assertEquals(BAD_IDS.size(), refused.size());
        refused.forEach(r -> assertTrue(r.has("error"), "bullmq accepted " + r));
        try (Queue queue = new Queue(q, queueOptions())) {
            for (String id : BAD_IDS) {
                ValidationException e = assertThrows(ValidationException.class,
                        () -> queue.add("j", Map.of(), JobOptions.builder().jobId(id).build()), id);
                assertEquals("jobId", e.field());
            }
        }
        assertEquals(0, redis().exists(key(q, "id"), key(q, "wait"), key(q, "events")), "nothing written");
    }

    @Test
    void bullmqAddBulkIsRunInOrderByBull4j() throws Exception {
        String q = queueName("bulk-n2j");
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            jobs.add(job("b" + i, Map.of("i", i), i == 7 ? Map.of("jobId", "bulk-seven") : null));
        }
        List<String> ids = node("addBulk", q, jobs).stream().map(a -> a.get("id").asText()).toList();
        assertEquals(25, ids.size());
        assertEquals("bulk-seven", ids.get(7));
        assertEquals(25, redis().llen(key(q, "wait")));

        InteropDataRun run = InteropDataRun.runUntil(q, 25, SCRIPTED, workerOptions().build());
        assertEquals(ids, run.startedIds(), "bull4j ran the bulk in bullmq's order");
        for (Job j : run.started()) {
            assertEquals("b" + j.data(Map.class).get("i"), j.name(), "data stays with its job");
        }
        assertEquals(25, redis().zcard(key(q, "completed")));
    }

    @Test
    void bull4jAddBulkIsRunInOrderByBullmq() {
        String q = queueName("bulk-j2n");
        List<BulkJob> bulk = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            bulk.add(i == 7 ? BulkJob.of("b" + i, Map.of("i", i), JobOptions.builder().jobId("bulk-seven").build())
                    : BulkJob.of("b" + i, Map.of("i", i)));
        }
        List<String> ids;
        try (Queue queue = new Queue(q, queueOptions())) {
            ids = queue.addBulk(bulk).stream().map(Job::id).toList();
        }
        assertEquals("bulk-seven", ids.get(7));
        List<JsonNode> done = work(q, Map.of("count", 25));
        assertEquals(ids, done.stream().map(l -> l.get("id").asText()).toList(), "bullmq ran bull4j's bulk in order");
        for (JsonNode l : done) {
            assertEquals("completed", l.get("event").asText());
            assertEquals(l.get("name").asText(), "b" + l.get("data").get("i").asInt(), "data stays with its job");
        }
        assertEquals(25, redis().zcard(key(q, "completed")));
    }

    @Test
    void bull4jReAddingABullmqIdReturnsTheExistingJobAndBullmqSeesDuplicated() throws Exception {
        String q = queueName("dup-j");
        JsonNode first = node("add", q, List.of(job("n", Map.of("v", "node"), Map.of("jobId", "dup-1")))).get(0);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job again = queue.add("j", Map.of("v", "java"), JobOptions.builder().jobId("dup-1").build());
            assertEquals("dup-1", again.id());
            assertEquals(Map.of("v", "node"), again.data(Map.class), "the existing job, not the new data");
            assertEquals("n", again.name());
            assertEquals(first.get("timestamp").asLong(), again.timestamp().toEpochMilli());
        }
        assertEquals(List.of("dup-1"), redis().lrange(key(q, "wait"), 0, -1), "queued once");
        assertEquals("{\"v\":\"node\"}", hash(q, "dup-1").get("data"));
        assertEquals(1, events(q, "added", "dup-1").size());
        assertEquals(1, events(q, "duplicated", "dup-1").size());
        assertEquals("2", redis().get(key(q, "id")), "a duplicate still counts, as in bullmq");
        JsonNode seen = node("waitEvent", q, "duplicated", "dup-1").get(0);
        assertEquals("dup-1", seen.get("jobId").asText(), "bullmq's QueueEvents reads bull4j's duplicated");
    }

    @Test
    void bullmqReAddingABull4jIdReturnsTheExistingJobAndBull4jSeesDuplicated() throws Exception {
        String q = queueName("dup-n");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.add("j", Map.of("v", "java"), JobOptions.builder().jobId("dup-2").build());
            CompletableFuture<QueueEvent> duplicated = new CompletableFuture<>();
            try (QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection())
                    .lastEventId("0").build())) {
                events.on(QueueEvent.Type.DUPLICATED, duplicated::complete);
                JsonNode again = node("add", q, List.of(job("n", Map.of("v", "node"), Map.of("jobId", "dup-2"))))
                        .get(0);
                assertEquals("dup-2", again.get("id").asText());
                assertEquals("dup-2", await(duplicated).jobId(), "bull4j's QueueEvents reads bullmq's duplicated");
            }
            assertEquals(Map.of("v", "java"), queue.getJob("dup-2").data(Map.class), "the existing job stays");
            assertEquals(List.of("dup-2"), redis().lrange(key(q, "wait"), 0, -1), "queued once");
            assertEquals(1, events(q, "duplicated", "dup-2").size());

            // once bullmq has run it, a re-add by bull4j still returns it (completed) and queues nothing
            assertEquals("dup-2", work(q, Map.of("count", 1)).get(0).get("id").asText());
            Job third = queue.add("j", Map.of("v", "java-2"), JobOptions.builder().jobId("dup-2").build());
            assertEquals(JobState.COMPLETED, third.getState());
            assertEquals(first.timestamp(), third.timestamp());
            assertNotNull(third.finishedOn());
            assertEquals(0, redis().llen(key(q, "wait")));
            assertEquals(2, events(q, "duplicated", "dup-2").size());
        }
    }
}
