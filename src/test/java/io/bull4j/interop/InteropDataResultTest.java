package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropDataRun.SCRIPTED;
import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Row 4: progress (number and object) and logs (trimmed by keepLogs; 0 keeps all) written by one side's processor, and its
 * return value (object, string, numbers, null, boolean, array, nested), read by the other side. Both directions.
 */
class InteropDataResultTest {
    static final List<String> LOG = List.of("step 1", "step 2 ✓", "step 3 😀 𝄞");
    static final Map<String, Object> OBJECT_PROGRESS = Map.of("pct", 50, "stage", "half", "note", "ünï😀");

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    /** name -> [data for the scripted processor, keepLogs or null]. */
    static Map<String, Object[]> jobs() {
        Map<String, Object[]> m = new LinkedHashMap<>();
        m.put("num", new Object[] {Map.of("progress", List.of(10, 42), "logs", LOG, "returns", 3.14), 2});
        m.put("obj", new Object[] {Map.of("progress", List.of(10, OBJECT_PROGRESS), "logs", LOG,
                "returns", Map.of("a", 1, "b", "x")), 2});
        m.put("allLogs", new Object[] {Map.of("logs", LOG, "returns", 7), null});
        // keepLogs 0 means no trim in BullMQ (it sends "" to its script)
        m.put("keepZero", new Object[] {Map.of("logs", LOG, "returns", 8), 0});
        m.put("str", new Object[] {Map.of("returns", "done ✓ 😀"), null});
        Map<String, Object> returnsNull = new HashMap<>();
        returnsNull.put("returns", null);
        m.put("null", new Object[] {returnsNull, null});
        m.put("nested", new Object[] {Map.of("returns", Map.of("l1", Map.of("l2", Map.of("l3",
                List.of(1, List.of(2, List.of(3, Map.of("deep", true)))))))), null});
        m.put("bool", new Object[] {Map.of("returns", false), null});
        m.put("arr", new Object[] {Map.of("returns", Arrays.asList(1, "two", null)), null});
        return m;
    }

    static JsonNode expectedReturn(String name) {
        return tree(((Map<?, ?>) jobs().get(name)[0]).get("returns"));
    }

    /** What keepLogs leaves: the newest lines. */
    static List<String> expectedLogs(String name) {
        Object[] j = jobs().get(name);
        List<?> logs = (List<?>) ((Map<?, ?>) j[0]).get("logs");
        if (logs == null) {
            return List.of();
        }
        int keep = j[1] == null || (Integer) j[1] == 0 ? logs.size() : (Integer) j[1];
        return LOG.subList(LOG.size() - keep, LOG.size());
    }

    static JsonNode expectedProgress(String name) {
        List<?> p = (List<?>) ((Map<?, ?>) jobs().get(name)[0]).get("progress");
        return p == null ? tree(0) : tree(p.get(p.size() - 1));
    }

    @Test
    void whatBull4jsProcessorReportsIsReadByBullmq() throws Exception {
        String q = queueName("result-j");
        List<Map<String, Object>> adds = new ArrayList<>();
        jobs().forEach((name, j) -> adds.add(job(name, j[0], j[1] == null ? Map.of() : Map.of("keepLogs", j[1]))));
        Map<String, String> idToName = new LinkedHashMap<>();
        node("add", q, adds).forEach(a -> idToName.put(a.get("id").asText(), a.get("name").asText()));

        InteropDataRun.runUntil(q, idToName.size(), SCRIPTED, workerOptions().build());
        for (JsonNode seen : node("getJobs", q, List.copyOf(idToName.keySet()))) {
            String id = seen.get("id").asText();
            String name = idToName.get(id);
            assertEquals("completed", seen.get("state").asText(), seen::toString);
            assertEquals(expectedReturn(name), seen.get("returnvalue"), "bullmq's returnvalue of " + name);
            assertEquals(expectedProgress(name), seen.get("progress"), "bullmq's job.progress of " + name);
            assertEquals(tree(expectedLogs(name)), seen.get("logs").get("logs"), "bullmq's getJobLogs of " + name);
            assertEquals(expectedLogs(name).size(), seen.get("logs").get("count").asInt());
            assertStoredAndEmitted(q, id, name);
        }
    }

    @Test
    void whatBullmqsProcessorReportsIsReadByBull4j() throws Exception {
        String q = queueName("result-n");
        Map<String, String> idToName = new LinkedHashMap<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            jobs().forEach((name, j) -> {
                JobOptions.Builder o = JobOptions.builder();
                if (j[1] != null) {
                    o.keepLogs((Integer) j[1]);
                }
                idToName.put(queue.add(name, j[0], o.build()).id(), name);
            });
            assertEquals(idToName.size(), work(q, Map.of("count", idToName.size())).size());
            for (Map.Entry<String, String> e : idToName.entrySet()) {
                Job job = queue.getJob(e.getKey());
                String name = e.getValue();
                assertEquals(JobState.COMPLETED, job.getState());
                assertEquals(expectedReturn(name), parse(job.returnValueJson()), "bull4j's returnValue of " + name);
                assertEquals(expectedProgress(name), tree(job.progress()), "bull4j's job.progress() of " + name);
                assertStoredAndEmitted(q, e.getKey(), name);
            }
            assertEquals(42, queue.getJob(idOf("num", idToName)).progress(), "a number progress reads as a number");
            assertEquals(OBJECT_PROGRESS, queue.getJob(idOf("obj", idToName)).progress());
            assertEquals("done ✓ 😀", queue.getJob(idOf("str", idToName)).returnValue(String.class));
        }
    }

    /** The Redis side, whoever wrote it: logs list, progress field, one progress event per update. */
    private static void assertStoredAndEmitted(String q, String id, String name) {
        assertEquals(expectedLogs(name), redis().lrange(key(q, id + ":logs"), 0, -1), "logs of " + name);
        List<?> progress = (List<?>) ((Map<?, ?>) jobs().get(name)[0]).get("progress");
        List<Map<String, String>> events = events(q, "progress", id);
        assertEquals(progress == null ? 0 : progress.size(), events.size(), "progress events of " + name);
        if (progress != null) {
            assertEquals(expectedProgress(name), parse(hash(q, id).get("progress")));
            assertEquals(expectedProgress(name), parse(events.get(events.size() - 1).get("data")));
        } else {
            assertNull(hash(q, id).get("progress"));
        }
        assertEquals(expectedReturn(name), parse(events(q, "completed", id).get(0).get("returnvalue")));
    }

    private static String idOf(String name, Map<String, String> idToName) {
        return idToName.entrySet().stream().filter(e -> e.getValue().equals(name)).findFirst().orElseThrow().getKey();
    }
}
