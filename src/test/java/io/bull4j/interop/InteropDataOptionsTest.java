package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Backoff;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job options as stored, byte for byte: the same options added by bullmq and by bull4j leave the same {@code opts}
 * text (and {@code delay}, {@code priority} fields), including options set to their default value and every form
 * of removeOnComplete/removeOnFail that BullMQ accepts (true, false, a number, 0, a negative number, {count},
 * {age}, {age, count}, {}). bullmq gets each set of options with its keys in the order bull4j writes them: the
 * stored text follows the order a caller gives its keys (Redis's cjson writes a Lua table), for both.
 */
class InteropDataOptionsTest {

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    /** One case: bull4j's options, and the same options as a bullmq caller writes them. */
    private record Case(JobOptions java, Map<String, Object> node) {
    }

    private static Map<String, Object> o(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static List<Case> cases() {
        List<Case> c = new ArrayList<>();
        c.add(new Case(JobOptions.builder().priority(0).delay(Duration.ZERO).lifo(false).build(),
                o("attempts", 0, "delay", 0, "priority", 0, "lifo", false)));
        c.add(new Case(JobOptions.builder().removeOnComplete(KeepJobs.of(3, null)).removeOnFail(KeepJobs.count(-1))
                .build(), o("removeOnComplete", o("count", 3), "removeOnFail", -1)));
        c.add(new Case(JobOptions.builder().removeOnComplete(KeepJobs.count(0)).removeOnFail(true).build(),
                o("removeOnComplete", 0, "removeOnFail", true)));
        c.add(new Case(JobOptions.builder().attempts(0).removeOnComplete(KeepJobs.age(Duration.ofSeconds(5)))
                .removeOnFail(KeepJobs.of(0, Duration.ZERO)).keepLogs(0).build(),
                o("attempts", 0, "removeOnComplete", o("age", 5), "removeOnFail", o("age", 0, "count", 0),
                        "keepLogs", 0)));
        c.add(new Case(JobOptions.builder().removeOnComplete(false).removeOnFail(KeepJobs.of(-2, null)).build(),
                o("removeOnComplete", false, "removeOnFail", o("count", -2))));
        c.add(new Case(JobOptions.builder().attempts(3).backoff(Backoff.fixed(Duration.ZERO))
                .removeOnComplete(KeepJobs.age(Duration.ofMillis(1500)).andCount(2)).removeOnFail(KeepJobs.count(7))
                .build(), o("attempts", 3, "backoff", o("type", "fixed", "delay", 0),
                "removeOnComplete", o("age", 1.5, "count", 2), "removeOnFail", 7)));
        c.add(new Case(JobOptions.builder().delay(Duration.ofMillis(5)).priority(2).lifo(true)
                .removeOnComplete(KeepJobs.of(null, null)).stackTraceLimit(0).build(),
                o("delay", 5, "priority", 2, "lifo", true, "removeOnComplete", o(), "stackTraceLimit", 0)));
        c.add(new Case(JobOptions.builder().jobId("x/y").timestamp(Instant.ofEpochMilli(1_796_000_000_123L))
                .removeOnComplete(KeepJobs.count(-5)).build(),
                o("jobId", "x/y", "timestamp", 1_796_000_000_123L, "removeOnComplete", -5)));
        c.add(new Case(JobOptions.builder().attempts(1).backoff(Backoff.exponential(Duration.ofMillis(10)))
                .sizeLimit(1000).build(),
                o("attempts", 1, "backoff", o("type", "exponential", "delay", 10), "sizeLimit", 1000)));
        return c;
    }

    @Test
    void bothSidesStoreTheSameOptionsText() throws Exception {
        String qn = queueName("opts-n");
        String qj = queueName("opts-j");
        List<Case> cases = cases();
        List<Map<String, Object>> adds = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            adds.add(job("c" + i, Map.of(), cases.get(i).node()));
        }
        List<String> nodeIds = new ArrayList<>();
        for (JsonNode added : node("add", qn, adds)) {
            assertFalse(added.has("error"), added::toString);
            nodeIds.add(added.get("id").asText());
        }
        try (Queue queue = new Queue(qj, queueOptions()); Queue nodes = new Queue(qn, queueOptions())) {
            for (int i = 0; i < cases.size(); i++) {
                Job job = queue.add("c" + i, Map.of(), cases.get(i).java());
                Map<String, String> ours = hash(qj, job.id());
                Map<String, String> theirs = hash(qn, nodeIds.get(i));
                String at = "case " + i + " " + cases.get(i).node();
                assertEquals(theirs.get("opts"), ours.get("opts"), at + ": the stored opts text");
                assertEquals(theirs.get("delay"), ours.get("delay"), at + ": delay");
                assertEquals(theirs.get("priority"), ours.get("priority"), at + ": priority");
                // and bull4j reads both back as the same options, in the same form
                assertEquals(queue.getJob(job.id()).opts(), nodes.getJob(nodeIds.get(i)).opts(), at + ": read back");
                assertEquals(cases.get(i).java().removeOnComplete(), queue.getJob(job.id()).opts().removeOnComplete());
            }
        }
    }
}
