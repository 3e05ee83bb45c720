package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import io.lettuce.core.ScoredValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropDataRun.SCRIPTED;
import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Row 3: the order one side's worker (concurrency 1) takes the other side's jobs in: strict priority, FIFO
 * within a priority, priority 0 before any priority; LIFO jobs first. Both directions, and both producers at once.
 */
class InteropDataOrderTest {
    /** name, priority (null: not set), lifo; in the order they are added. */
    record Add(String name, Integer priority, boolean lifo) {
    }

    static final List<Add> PRIORITIES = List.of(new Add("p3-a", 3, false), new Add("p1-a", 1, false),
            new Add("p0-a", null, false), new Add("p2-a", 2, false), new Add("pmax", JobOptions.MAX_PRIORITY, false),
            new Add("p1-b", 1, false), new Add("p0-b", 0, false), new Add("p3-b", 3, false),
            new Add("p0-c", null, false), new Add("p2-b", 2, false));
    static final List<String> PRIORITY_ORDER = List.of("p0-a", "p0-b", "p0-c", "p1-a", "p1-b", "p2-a", "p2-b", "p3-a",
            "p3-b", "pmax");

    /** LIFO jobs go to the head of the line, the last one first; FIFO ones to its tail. */
    static final List<Add> LIFO = List.of(new Add("a", null, false), new Add("b", null, false),
            new Add("c", null, false), new Add("d", null, true), new Add("e", null, true), new Add("f", null, false));
    static final List<String> LIFO_ORDER = List.of("e", "d", "a", "b", "c", "f");

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void bullmqPrioritiesAreRunInStrictOrderByBull4j() throws Exception {
        String q = queueName("prio-n2j");
        addWithNode(q, PRIORITIES);
        assertPrioritizedScores(q);
        assertEquals(PRIORITY_ORDER, runWithJava(q, PRIORITIES.size()));
    }

    @Test
    void bull4jPrioritiesAreRunInStrictOrderByBullmq() {
        String q = queueName("prio-j2n");
        addWithJava(q, PRIORITIES);
        assertPrioritizedScores(q);
        assertEquals(PRIORITY_ORDER, runWithNode(q, PRIORITIES.size()));
    }

    @Test
    void bothProducersShareOnePriorityCounter() {
        String q = queueName("prio-mix");
        addWithJava(q, List.of(new Add("j-p2-1", 2, false)));
        addWithNode(q, List.of(new Add("n-p2-1", 2, false), new Add("n-p0-1", null, false)));
        addWithJava(q, List.of(new Add("j-p2-2", 2, false), new Add("j-p1-1", 1, false)));
        addWithNode(q, List.of(new Add("n-p1-1", 1, false)));
        assertPrioritizedScores(q);
        assertEquals("5", redis().get(key(q, "pc")), "one counter, incremented by both sides");
        assertEquals(List.of("n-p0-1", "j-p1-1", "n-p1-1", "j-p2-1", "n-p2-1", "j-p2-2"), runWithNode(q, 6));
    }

    @Test
    void bothProducersShareOnePriorityCounterAndBull4jRunsTheirJobs() throws Exception {
        String q = queueName("prio-mix-j");
        addWithNode(q, List.of(new Add("n-p2-1", 2, false)));
        addWithJava(q, List.of(new Add("j-p2-1", 2, false), new Add("j-p0-1", null, false)));
        addWithNode(q, List.of(new Add("n-p2-2", 2, false), new Add("n-p1-1", 1, false)));
        addWithJava(q, List.of(new Add("j-p1-1", 1, false)));
        assertPrioritizedScores(q);
        assertEquals("5", redis().get(key(q, "pc")), "one counter, incremented by both sides");
        assertEquals(List.of("j-p0-1", "n-p1-1", "j-p1-1", "n-p2-1", "j-p2-1", "n-p2-2"), runWithJava(q, 6));
    }

    @Test
    void bullmqLifoJobsAreRunFirstByBull4j() throws Exception {
        String q = queueName("lifo-n2j");
        addWithNode(q, LIFO);
        assertEquals(LIFO_ORDER, runWithJava(q, LIFO.size()));
    }

    @Test
    void bull4jLifoJobsAreRunFirstByBullmq() {
        String q = queueName("lifo-j2n");
        addWithJava(q, LIFO);
        assertEquals(LIFO_ORDER, runWithNode(q, LIFO.size()));
    }

    /**
     * Every prioritized job's score is priority * 2^32 + its place in the shared counter; the counter gives
     * each add of a prioritized job the next number, whoever adds.
     */
    private static void assertPrioritizedScores(String q) {
        List<ScoredValue<String>> scored = new ArrayList<>(redis().zrangeWithScores(key(q, "prioritized"), 0, -1));
        assertFalse(scored.isEmpty());
        scored.sort(Comparator.comparingDouble(s -> s.getScore() % 4294967296d));
        for (int i = 0; i < scored.size(); i++) {
            long priority = Long.parseLong(hash(q, scored.get(i).getValue()).get("priority"));
            assertEquals((double) (priority * 4294967296L + i + 1), scored.get(i).getScore(), scored.get(i).getValue());
        }
    }

    private static void addWithNode(String q, List<Add> adds) {
        List<Map<String, Object>> jobs = new ArrayList<>();
        for (Add a : adds) {
            Map<String, Object> opts = new LinkedHashMap<>();
            if (a.priority() != null) {
                opts.put("priority", a.priority());
            }
            if (a.lifo()) {
                opts.put("lifo", true);
            }
            jobs.add(job(a.name(), Map.of(), opts));
        }
        node("add", q, jobs).forEach(l -> assertTrue(l.has("id"), l::toString));
    }

    private static void addWithJava(String q, List<Add> adds) {
        try (Queue queue = new Queue(q, queueOptions())) {
            for (Add a : adds) {
                JobOptions.Builder o = JobOptions.builder().lifo(a.lifo());
                if (a.priority() != null) {
                    o.priority(a.priority());
                }
                queue.add(a.name(), Map.of(), o.build());
            }
        }
    }

    /** The names in the order a bull4j worker with concurrency 1 started them. */
    private static List<String> runWithJava(String q, int count) throws Exception {
        InteropDataRun run = InteropDataRun.runUntil(q, count, SCRIPTED, workerOptions().concurrency(1).build());
        return run.started().stream().map(Job::name).toList();
    }

    /** The names in the order a bullmq worker with concurrency 1 started them. */
    private static List<String> runWithNode(String q, int count) {
        List<JsonNode> done = work(q, Map.of("count", count, "workerOpts", Map.of("concurrency", 1)));
        assertEquals(count, done.size());
        return names(done);
    }
}
