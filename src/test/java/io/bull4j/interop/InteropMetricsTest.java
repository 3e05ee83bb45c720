package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.JobMetrics;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropKit.*;
import static io.bull4j.interop.ObservabilityKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Metrics across the two sides: bullmq 6.7.0 workers and bull4j workers, both with metrics, count into the same
 * metrics:completed / metrics:failed hashes and per-minute lists, equal to what bullmq alone writes for the same
 * jobs and finish times; and each side's getMetrics reads what the other wrote.
 */
class InteropMetricsTest {
    private static final long T0 = 29_100_000L * 60_000 + 20_000;
    private static final int POINTS = 20;

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    private static Map<String, Object> at(int minute, boolean fail) {
        return Map.of("at", T0 + minute * 60_000L, "fail", fail);
    }

    /** The jobs, in phases: each phase is run by one side (node on even phases in the mixed run). */
    private static final List<List<Map<String, Object>>> PHASES = List.of(
            List.of(at(0, false), at(0, false), at(0, true)),
            List.of(at(1, false), at(1, true), at(2, false)),
            List.of(at(5, false), at(5, true)),
            List.of(at(6, false), at(9, true), at(9, false)));

    private static void add(String q, List<Map<String, Object>> jobs) {
        try (Queue queue = new Queue(q, queueOptions())) {
            for (Map<String, Object> data : jobs) {
                queue.add("m", data);
            }
        }
    }

    private static Map<String, Object> state(String q) {
        return Map.of("completed", redis().hgetall(key(q, "metrics:completed")),
                "failed", redis().hgetall(key(q, "metrics:failed")),
                "completedData", redis().lrange(key(q, "metrics:completed:data"), 0, -1),
                "failedData", redis().lrange(key(q, "metrics:failed:data"), 0, -1));
    }

    @Test
    void nodeAndJavaWorkersCountIntoTheSameMinutesAsNodeAlone() throws Exception {
        String nodeOnly = queueName("metrics-node");
        List<Map<String, Object>> all = new ArrayList<>();
        PHASES.forEach(all::addAll);
        add(nodeOnly, all);
        bullmq("work", nodeOnly, Map.of("count", all.size(), "metrics", POINTS));

        String mixed = queueName("metrics-mixed");
        for (int i = 0; i < PHASES.size(); i++) {
            add(mixed, PHASES.get(i));
            if (i % 2 == 0) {
                bullmq("work", mixed, Map.of("count", PHASES.get(i).size(), "metrics", POINTS));
            } else {
                javaWork(mixed, POINTS, PHASES.get(i).size());
            }
        }

        Map<String, Object> expected = state(nodeOnly);
        // what bullmq wrote, spelled out: completed at minutes 0,0,1,2,5,6,9 and failed at 0,1,5,9
        assertEquals(Map.of("count", "7", "prevCount", "6", "prevTS", Long.toString(T0 + 9 * 60_000)),
                expected.get("completed"));
        assertEquals(List.of("0", "0", "1", "1", "0", "0", "1", "1", "2"), expected.get("completedData"));
        assertEquals(Map.of("count", "4", "prevCount", "3", "prevTS", Long.toString(T0 + 9 * 60_000)),
                expected.get("failed"));
        assertEquals(List.of("0", "0", "0", "1", "0", "0", "0", "1", "1"), expected.get("failedData"));
        assertEquals(expected, state(mixed), "the mixed run wrote what bullmq alone wrote");
    }

    @Test
    void eachSidesGetMetricsReadsTheOthersData() throws Exception {
        String fromNode = queueName("metrics-read-node");
        add(fromNode, PHASES.get(0));
        add(fromNode, PHASES.get(1));
        bullmq("work", fromNode, Map.of("count", 6, "metrics", POINTS));
        String fromJava = queueName("metrics-read-java");
        add(fromJava, PHASES.get(0));
        add(fromJava, PHASES.get(1));
        javaWork(fromJava, POINTS, 6);

        for (String q : List.of(fromNode, fromJava)) {
            try (Queue queue = new Queue(q, queueOptions())) {
                assertEquals(4, queue.getMetrics(JobState.COMPLETED).count(), q);
                assertEquals(List.of(1L, 2L), queue.getMetrics(JobState.COMPLETED).data(), q);
                for (JobState type : List.of(JobState.COMPLETED, JobState.FAILED)) {
                    for (long[] page : new long[][] {{0, -1}, {1, 1}, {0, 0}}) {
                        JobMetrics mine = queue.getMetrics(type, page[0], page[1]);
                        JsonNode theirs = bullmq("metrics", q, Map.of("type", type.wireName(), "start", page[0],
                                "end", page[1]));
                        String where = q + " " + type + " " + page[0] + ".." + page[1];
                        assertEquals(theirs.get("meta").get("count").asLong(), mine.count(), where);
                        assertEquals(theirs.get("meta").get("prevTS").asLong(), mine.prevTimestamp().toEpochMilli(),
                                where);
                        assertEquals(theirs.get("meta").get("prevCount").asLong(), mine.prevCount(), where);
                        List<Long> data = new ArrayList<>();
                        theirs.get("data").forEach(n -> data.add(n.asLong()));
                        assertEquals(data, mine.data(), where);
                        assertEquals(theirs.get("count").asLong(), mine.dataPoints(), where);
                    }
                }
            }
        }
    }
}
