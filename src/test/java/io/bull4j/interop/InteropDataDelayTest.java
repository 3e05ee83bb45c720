package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.lettuce.core.ScoredValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropDataRun.SCRIPTED;
import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Row 2: delayed jobs. A worker of one side, asleep on the marker, is woken by the other side's delayed add and
 * runs the job when due, not before; both producers share one delayed schedule (scores and the marker).
 */
class InteropDataDelayTest {
    /** So long that a worker which missed the delay marker would still be asleep when {@link #BOUND} ends. */
    static final Duration DRAIN = Duration.ofSeconds(30);
    static final Duration BOUND = Duration.ofSeconds(8);
    /** Added in this order, due in another. */
    static final Map<String, Long> DELAYS = new LinkedHashMap<>();
    static final List<String> DUE_ORDER = List.of("early", "mid", "late");

    static {
        DELAYS.put("late", 900L);
        DELAYS.put("early", 300L);
        DELAYS.put("mid", 600L);
    }

    /** Due together (name -> priority): promotion puts priority 0 in wait and the others in prioritized. */
    static final Map<String, Integer> PROMOTED = new LinkedHashMap<>();
    static final List<String> PROMOTED_ORDER = List.of("d-p0", "d-p1", "d-p2", "d-p3");

    static {
        PROMOTED.put("d-p3", 3);
        PROMOTED.put("d-p1", 1);
        PROMOTED.put("d-p0", 0);
        PROMOTED.put("d-p2", 2);
    }

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void bullmqDelayedJobsWakeASleepingBull4jWorkerAndRunWhenDue() throws Exception {
        String q = queueName("delay-n2j");
        List<String> ids = new ArrayList<>();
        try (InteropDataRun run = InteropDataRun.start(q, SCRIPTED, workerOptions().drainDelay(DRAIN).build())) {
            awaitBlockedWorker(q);
            List<Map<String, Object>> jobs = new ArrayList<>();
            DELAYS.forEach((name, delay) -> jobs.add(job(name, Map.of(), Map.of("delay", delay))));
            for (JsonNode a : node("add", q, jobs)) {
                ids.add(a.get("id").asText());
                long due = a.get("timestamp").asLong() + DELAYS.get(a.get("name").asText());
                assertEquals(String.valueOf(due), events(q, "delayed", a.get("id").asText()).get(0).get("delay"));
            }
            run.awaitOutcomes(3, BOUND);
            assertEquals(DUE_ORDER, run.started().stream().map(Job::name).toList(), "bull4j ran them by due time");
            for (Job j : run.started()) {
                Map<String, String> h = hash(q, j.id());
                long due = Long.parseLong(h.get("timestamp")) + DELAYS.get(j.name());
                assertTrue(Long.parseLong(h.get("processedOn")) >= due, j.name() + " ran before it was due: " + h);
                assertEquals("0", h.get("delay"), "promotion resets delay, as bullmq does");
                assertEquals("delayed", events(q, "waiting", j.id()).get(0).get("prev"));
            }
        }
        for (JsonNode seen : node("getJobs", q, ids)) {
            assertEquals("completed", seen.get("state").asText(), seen::toString);
            long due = seen.get("timestamp").asLong() + DELAYS.get(seen.get("name").asText());
            assertTrue(seen.get("processedOn").asLong() >= due, "bullmq sees it ran when due: " + seen);
        }
    }

    @Test
    void bull4jDelayedJobsWakeASleepingBullmqWorkerAndRunWhenDue() throws Exception {
        String q = queueName("delay-j2n");
        Map<String, Object> spec = Map.of("count", 3, "timeoutMs", BOUND.toMillis(),
                "workerOpts", Map.of("drainDelay", DRAIN.toSeconds()));
        try (NodeProcess worker = nodeStart("work", q, spec); Queue queue = new Queue(q, queueOptions())) {
            assertEquals("ready", worker.awaitLine(WAIT).get("event").asText());
            awaitBlockedWorker(q);
            List<Job> added = new ArrayList<>();
            for (Map.Entry<String, Long> e : DELAYS.entrySet()) {
                Job j = queue.add(e.getKey(), Map.of(),
                        JobOptions.builder().delay(Duration.ofMillis(e.getValue())).build());
                added.add(j);
                long due = j.timestamp().toEpochMilli() + e.getValue();
                assertEquals(String.valueOf(due), events(q, "delayed", j.id()).get(0).get("delay"));
            }
            List<JsonNode> done = new ArrayList<>(awaitFinished(worker, 3));
            assertEquals(0, worker.waitFor(WAIT), worker::stderr);
            done.sort(Comparator.comparingInt(l -> l.get("seq").asInt()));
            assertEquals(DUE_ORDER, done.stream().map(l -> l.get("name").asText()).toList(), "bullmq ran them by due");
            for (JsonNode l : done) {
                long due = l.get("timestamp").asLong() + DELAYS.get(l.get("name").asText());
                assertTrue(l.get("processedOn").asLong() >= due, "bullmq ran it before it was due: " + l);
            }
            for (Job j : added) {
                Job after = queue.getJob(j.id());
                assertEquals(JobState.COMPLETED, after.getState());
                assertTrue(!after.processedOn().isBefore(j.timestamp().plus(j.delay())), "bull4j sees it ran when due");
                assertEquals(Duration.ZERO, after.delay(), "bullmq reset the delay on promotion");
            }
        }
    }

    @Test
    void bothProducersShareOneDelayedScheduleThatBullmqRuns() throws Exception {
        String q = queueName("delay-mix-n");
        List<String> order = addSharedSchedule(q);
        assertEquals(order, names(work(q, Map.of("count", order.size()))));
    }

    @Test
    void bothProducersShareOneDelayedScheduleThatBull4jRuns() throws Exception {
        String q = queueName("delay-mix-j");
        List<String> order = addSharedSchedule(q);
        InteropDataRun run = InteropDataRun.runUntil(q, order.size(), SCRIPTED, workerOptions().build());
        assertEquals(order, run.started().stream().map(Job::name).toList());
    }

    @Test
    void bullmqDelayedPrioritizedJobsArePromotedByBull4jIntoPriorityOrder() throws Exception {
        String q = queueName("delay-prio-n2j");
        long past = System.currentTimeMillis() - 1000; // due already, but they still pass through delayed
        List<Map<String, Object>> jobs = new ArrayList<>();
        PROMOTED.forEach((name, priority) -> jobs.add(job(name, Map.of(),
                Map.of("timestamp", past, "delay", 200, "priority", priority))));
        node("add", q, jobs);
        assertEquals(PROMOTED.size(), redis().zcard(key(q, "delayed")));
        InteropDataRun run = InteropDataRun.runUntil(q, PROMOTED.size(), SCRIPTED, workerOptions().build());
        assertEquals(PROMOTED_ORDER, run.started().stream().map(Job::name).toList());
    }

    @Test
    void bull4jDelayedPrioritizedJobsArePromotedByBullmqIntoPriorityOrder() {
        String q = queueName("delay-prio-j2n");
        long past = System.currentTimeMillis() - 1000;
        try (Queue queue = new Queue(q, queueOptions())) {
            PROMOTED.forEach((name, priority) -> queue.add(name, Map.of(), delayedFrom(past, 200).toBuilder()
                    .priority(priority).build()));
        }
        assertEquals(PROMOTED.size(), redis().zcard(key(q, "delayed")));
        assertEquals(PROMOTED_ORDER, names(work(q, Map.of("count", PROMOTED.size()))));
    }

    /**
     * Both sides add delayed jobs from one base time, three of them due in the same millisecond: the scores are
     * due*4096 plus a sequence that keeps FIFO within that millisecond, whoever added, and the delay marker always
     * names the earliest due time. Returns the names in the order they must run.
     */
    private static List<String> addSharedSchedule(String q) {
        long base = System.currentTimeMillis();
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.add("j-900", Map.of(), delayedFrom(base, 900));
            node("add", q, List.of(job("n-300", Map.of(), Map.of("timestamp", base, "delay", 300))));
            queue.add("j-600-a", Map.of(), delayedFrom(base, 600));
            node("add", q, List.of(job("n-600-b", Map.of(), Map.of("timestamp", base, "delay", 600))));
            queue.add("j-600-c", Map.of(), delayedFrom(base, 600));
        }
        List<String> order = List.of("n-300", "j-600-a", "n-600-b", "j-600-c", "j-900");
        Map<String, Long> expectedScore = Map.of("n-300", (base + 300) * 4096, "j-600-a", (base + 600) * 4096,
                "n-600-b", (base + 600) * 4096 + 1, "j-600-c", (base + 600) * 4096 + 2, "j-900", (base + 900) * 4096);
        List<ScoredValue<String>> delayed = redis().zrangeWithScores(key(q, "delayed"), 0, -1);
        assertEquals(order.size(), delayed.size());
        for (int i = 0; i < delayed.size(); i++) {
            String name = hash(q, delayed.get(i).getValue()).get("name");
            assertEquals(order.get(i), name, "position " + i + " of the delayed set");
            assertEquals((double) expectedScore.get(name), delayed.get(i).getScore(), "score of " + name);
        }
        assertEquals((double) (base + 300), redis().zscore(key(q, "marker"), "1"), "the marker names the earliest");
        return order;
    }

    private static JobOptions delayedFrom(long base, long delayMs) {
        return JobOptions.builder().timestamp(Instant.ofEpochMilli(base)).delay(Duration.ofMillis(delayMs)).build();
    }
}
