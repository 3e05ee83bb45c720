package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropDataRun.SCRIPTED;
import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Row 5: removeOnComplete / removeOnFail by count, by age and as true (removeOnFail: true too), set by the
 * producer on one side and honoured by the worker on the other. Job ids 1..9 sort as they finish, so Redis' order for equal finish times
 * (by member) agrees with the finish order and the count trimming is deterministic.
 */
class InteropDataRetentionTest {
    /** A job of the count scenario: name, data for the scripted processor, opts as bullmq writes them. */
    record Spec(String name, Map<String, Object> data, Map<String, Object> opts) {
    }

    static final Map<String, Object> OK = Map.of("returns", "ok");
    static final Map<String, Object> BOOM = Map.of("fail", "boom");

    /** Run FIFO as ids 1..8: completed keeps the 2 newest (5, 7), then 8 removes only itself; failed keeps 6. */
    static final List<Spec> COUNT = List.of(new Spec("ok1", OK, Map.of("removeOnComplete", 2)),
            new Spec("bad1", BOOM, Map.of("removeOnFail", 1)), new Spec("ok2", OK, Map.of("removeOnComplete", 2)),
            new Spec("bad2", BOOM, Map.of("removeOnFail", 1)), new Spec("ok3", OK, Map.of("removeOnComplete", 2)),
            new Spec("bad3", BOOM, Map.of("removeOnFail", 1)), new Spec("ok4", OK, Map.of("removeOnComplete", 2)),
            new Spec("gone", OK, Map.of("removeOnComplete", true)));
    static final List<String> COUNT_KEPT_COMPLETED = List.of("5", "7");
    static final List<String> COUNT_KEPT_FAILED = List.of("6");
    static final List<String> COUNT_REMOVED = List.of("1", "2", "3", "4", "8");

    /** Age 1 s: the first two are removed by the last two, which finish more than a second later. */
    static final Map<String, Object> AGE_OK = Map.of("removeOnComplete", Map.of("age", 1));
    static final Map<String, Object> AGE_FAIL = Map.of("removeOnFail", Map.of("age", 1));
    static final long LATER_MS = 1100;

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void countsSetByBullmqAreHonouredByBull4j() throws Exception {
        String q = queueName("keep-n2j");
        List<Map<String, Object>> jobs = new ArrayList<>();
        COUNT.forEach(s -> jobs.add(job(s.name(), s.data(), s.opts())));
        node("add", q, jobs);
        InteropDataRun.runUntil(q, COUNT.size(), SCRIPTED, workerOptions().build());
        assertCountOutcome(q);
        try (Queue queue = new Queue(q, queueOptions())) {
            COUNT_REMOVED.forEach(id -> assertNull(queue.getJob(id), id));
        }
    }

    @Test
    void countsSetByBull4jAreHonouredByBullmq() {
        String q = queueName("keep-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (Spec s : COUNT) {
                JobOptions.Builder o = JobOptions.builder();
                Object rc = s.opts().get("removeOnComplete");
                if (rc instanceof Boolean b) {
                    o.removeOnComplete(b);
                } else if (rc != null) {
                    o.removeOnComplete(KeepJobs.count((Integer) rc));
                }
                if (s.opts().get("removeOnFail") != null) {
                    o.removeOnFail(KeepJobs.count((Integer) s.opts().get("removeOnFail")));
                }
                queue.add(s.name(), s.data(), o.build());
            }
        }
        assertEquals(COUNT.size(), work(q, Map.of("count", COUNT.size())).size());
        assertCountOutcome(q);
    }

    /** removeOnFail: true (and removeOnComplete: true) set by bullmq, honoured by bull4j's worker. */
    @Test
    void removeOnTrueSetByBullmqIsHonouredByBull4j() throws Exception {
        String q = queueName("rm-true-n2j");
        node("add", q, List.of(job("bad", BOOM, Map.of("removeOnFail", true)), job("ok", OK,
                Map.of("removeOnComplete", true)), job("kept", BOOM, Map.of())));
        InteropDataRun.runUntil(q, 3, SCRIPTED, workerOptions().build());
        assertRemovedOnTrue(q);
    }

    /** The same options set by bull4j, honoured by bullmq's worker. */
    @Test
    void removeOnTrueSetByBull4jIsHonouredByBullmq() {
        String q = queueName("rm-true-j2n");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("bad", BOOM, JobOptions.builder().removeOnFail(true).build());
            queue.add("ok", OK, JobOptions.builder().removeOnComplete(true).build());
            queue.add("kept", BOOM, JobOptions.builder().build());
        }
        assertEquals(3, work(q, Map.of("count", 3)).size());
        assertRemovedOnTrue(q);
    }

    /** Jobs 1 (failed) and 2 (completed) are gone with their keys, events written; job 3 stays failed. */
    private static void assertRemovedOnTrue(String q) {
        assertEquals(0, redis().exists(key(q, "1"), key(q, "1:logs"), key(q, "1:lock"), key(q, "2")));
        assertEquals(List.of("3"), redis().zrange(key(q, "failed"), 0, -1));
        assertEquals(0, redis().zcard(key(q, "completed")));
        assertEquals(1, events(q, "failed", "1").size());
        assertEquals(1, events(q, "retries-exhausted", "1").size());
        assertEquals(1, events(q, "completed", "2").size());
        List<JsonNode> seen = node("getJobs", q, List.of("1", "2", "3"));
        assertTrue(seen.get(0).path("missing").asBoolean(), seen.get(0)::toString);
        assertTrue(seen.get(1).path("missing").asBoolean(), seen.get(1)::toString);
        assertEquals("failed", seen.get(2).get("state").asText());
    }

    @Test
    void agesSetByBullmqAreHonouredByBull4j() throws Exception {
        String q = queueName("age-n2j");
        try (InteropDataRun run = InteropDataRun.start(q, SCRIPTED, workerOptions().build())) {
            node("add", q, List.of(job("ok-old", OK, AGE_OK), job("bad-old", BOOM, AGE_FAIL)));
            run.awaitOutcomes(2);
            node("add", q, List.of(job("ok-new", OK, later(AGE_OK)), job("bad-new", BOOM, later(AGE_FAIL))));
            run.awaitOutcomes(4);
        }
        assertAgeOutcome(q);
    }

    @Test
    void agesSetByBull4jAreHonouredByBullmq() throws Exception {
        String q = queueName("age-j2n");
        KeepJobs second = KeepJobs.age(Duration.ofSeconds(1));
        try (NodeProcess worker = nodeStart("work", q, Map.of("count", 4));
             Queue queue = new Queue(q, queueOptions())) {
            assertEquals("ready", worker.awaitLine(WAIT).get("event").asText());
            queue.add("ok-old", OK, JobOptions.builder().removeOnComplete(second).build());
            queue.add("bad-old", BOOM, JobOptions.builder().removeOnFail(second).build());
            awaitFinished(worker, 2);
            Duration later = Duration.ofMillis(LATER_MS);
            queue.add("ok-new", OK, JobOptions.builder().removeOnComplete(second).delay(later).build());
            queue.add("bad-new", BOOM, JobOptions.builder().removeOnFail(second).delay(later).build());
            awaitFinished(worker, 2);
            assertEquals(0, worker.waitFor(WAIT), worker::stderr);
        }
        assertAgeOutcome(q);
    }

    @Test
    void aSubSecondAgeSetByBull4jIsReadByBullmqAsFractionalSeconds() throws Exception {
        String q = queueName("age-frac");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("ok", OK, JobOptions.builder().removeOnComplete(KeepJobs.age(Duration.ofMillis(500)))
                    .build());
            assertEquals(0.5, parse(hash(q, job.id()).get("opts")).get("removeOnComplete").get("age").asDouble());
            assertEquals(KeepJobs.age(Duration.ofMillis(500)), queue.getJob(job.id()).opts().removeOnComplete());
            work(q, Map.of("count", 1));
            // bullmq keeps the job it just finished: a truncated age of 0 would have removed it at once
            assertNotNull(redis().zscore(key(q, "completed"), job.id()));
            assertEquals("completed", node("getJobs", q, List.of(job.id())).get(0).get("state").asText());
        }
    }

    @Test
    void aSubSecondAgeSetByBullmqIsHonouredByBull4j() throws Exception {
        String q = queueName("age-frac-n2j");
        Map<String, Object> halfSecond = Map.of("removeOnComplete", Map.of("age", 0.5));
        try (InteropDataRun run = InteropDataRun.start(q, SCRIPTED, workerOptions().build())) {
            node("add", q, List.of(job("ok-old", OK, halfSecond)));
            run.awaitOutcomes(1);
            Map<String, Object> later = new LinkedHashMap<>(halfSecond);
            later.put("delay", 700);
            node("add", q, List.of(job("ok-new", OK, later)));
            run.awaitOutcomes(2);
        }
        assertEquals(List.of("2"), redis().zrange(key(q, "completed"), 0, -1), "0.7 s old, over the 0.5 s age");
    }

    private static Map<String, Object> later(Map<String, Object> opts) {
        Map<String, Object> o = new LinkedHashMap<>(opts);
        o.put("delay", LATER_MS);
        return o;
    }

    /** Redis and bullmq's view after the count scenario, whoever ran it. */
    private static void assertCountOutcome(String q) {
        assertEquals(COUNT_KEPT_COMPLETED, redis().zrange(key(q, "completed"), 0, -1));
        assertEquals(COUNT_KEPT_FAILED, redis().zrange(key(q, "failed"), 0, -1));
        for (String id : COUNT_REMOVED) {
            assertEquals(0, redis().exists(key(q, id), key(q, id + ":logs"), key(q, id + ":lock")), "job " + id);
        }
        List<String> all = List.of("1", "2", "3", "4", "5", "6", "7", "8");
        for (JsonNode seen : node("getJobs", q, all)) {
            String id = seen.get("id").asText();
            if (COUNT_REMOVED.contains(id)) {
                assertTrue(seen.path("missing").asBoolean(), "bullmq still finds " + seen);
            } else {
                assertEquals(COUNT_KEPT_FAILED.contains(id) ? "failed" : "completed", seen.get("state").asText());
            }
        }
    }

    /** Ids 1, 2 (old) were removed when 3, 4 finished more than a second later; 3 and 4 are kept. */
    private static void assertAgeOutcome(String q) {
        assertEquals(List.of("3"), redis().zrange(key(q, "completed"), 0, -1));
        assertEquals(List.of("4"), redis().zrange(key(q, "failed"), 0, -1));
        assertEquals(0, redis().exists(key(q, "1"), key(q, "2")));
        assertEquals("ok-new", hash(q, "3").get("name"));
        assertEquals("bad-new", hash(q, "4").get("name"));
        assertEquals("boom", hash(q, "4").get("failedReason"));
    }
}
