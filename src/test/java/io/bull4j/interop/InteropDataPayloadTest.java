package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Row 1a: job data of every shape (nested, unicode with emoji and non-BMP characters, null, empty, scalars, 1 MiB)
 * added on one side is read intact by the other side's worker, whose echo of it comes back intact as the return
 * value. Both directions.
 */
class InteropDataPayloadTest {
    /** The fields an add writes, on either side: nothing more, nothing less. */
    static final Set<String> ADDED_FIELDS = Set.of("name", "data", "opts", "timestamp", "delay", "priority");
    static final String UNICODE = "héllo wörld ñ “quotes” 日本語 한국어 العربية עברית é (e+combining) 😀👍🏽👨‍👩‍👧‍👦🇺🇳 "
            + "𝄞𝕏𠀀 \u2028\u2029";

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    /** name -> data; "null" is JSON null. */
    static Map<String, Object> payloads() {
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("a", Map.of("b", Map.of("c", List.of(1, 2, Map.of("d", "e", "deep", List.of(List.of(List.of())))))));
        nested.put("n", 1.5);
        nested.put("neg", -12);
        nested.put("tiny", 1e-7);
        nested.put("maxSafe", 9007199254740991L);
        nested.put("t", true);
        nested.put("f", false);
        nested.put("nul", null);
        Map<String, Object> unicode = new LinkedHashMap<>();
        unicode.put("text", UNICODE);
        unicode.put("escapes", "quote\" backslash\\ slash/ nl\n tab\t cr\r nul\u0000 bell\u0007 del\u007f");
        unicode.put("ключ-😀", "a non-ASCII key");
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("nested", nested);
        p.put("unicode", unicode);
        p.put("emoji", "😀");
        p.put("null", null);
        p.put("emptyObject", Map.of());
        p.put("emptyString", "");
        p.put("emptyArray", List.of());
        p.put("number", 42);
        p.put("boolean", true);
        p.put("large", Map.of("blob", large()));
        return p;
    }

    /** 1 MiB of text with multi-byte characters spread through it, so a cut or re-encoding shows. */
    static String large() {
        StringBuilder sb = new StringBuilder(1 << 20);
        for (int i = 0; sb.length() < (1 << 20) - 64; i++) {
            sb.append(i % 1000 == 0 ? "é😀𝄞" : "0123456789abcdef".charAt(i % 16));
        }
        return sb.append("-END").toString();
    }

    @Test
    void dataAddedByBullmqIsReadByBull4jAndItsEchoByBullmq() throws Exception {
        String q = queueName("data-n2j");
        Map<String, Object> payloads = payloads();
        List<Map<String, Object>> jobs = new ArrayList<>();
        payloads.forEach((name, data) -> jobs.add(job(name, data)));
        List<JsonNode> added = node("add", q, jobs);
        assertEquals(payloads.size(), added.size());
        Map<String, String> idToName = new LinkedHashMap<>();
        for (JsonNode a : added) {
            String id = a.get("id").asText();
            idToName.put(id, a.get("name").asText());
            Map<String, String> h = hash(q, id);
            assertEquals(ADDED_FIELDS, h.keySet(), "bullmq's stored fields for " + id);
            assertEquals(tree(payloads.get(a.get("name").asText())), parse(h.get("data")), "stored data " + id);
        }

        InteropDataRun run = InteropDataRun.runUntil(q, payloads.size(), InteropDataRun.ECHO, workerOptions().build());
        for (InteropDataRun.Outcome o : run.outcomes()) {
            assertTrue(o.completed(), "bull4j failed " + o.job() + ": " + o.error());
            Object expected = payloads.get(o.job().name());
            assertEquals(tree(expected), parse(o.job().dataJson()), "bull4j read of " + o.job().name());
            assertEquals(tree(expected), tree(o.job().data()), "bull4j data() of " + o.job().name());
        }
        Map<?, ?> unicode = run.outcomes().stream().filter(o -> o.job().name().equals("unicode")).findFirst()
                .orElseThrow().job().data(Map.class);
        assertEquals(UNICODE, unicode.get("text"));
        assertEquals("a non-ASCII key", unicode.get("ключ-😀"));

        for (JsonNode seen : node("getJobs", q, List.copyOf(idToName.keySet()))) {
            String name = idToName.get(seen.get("id").asText());
            assertEquals("completed", seen.get("state").asText(), seen.get("id").asText());
            assertEquals(tree(payloads.get(name)), seen.get("returnvalue"), "bullmq read of bull4j's echo: " + name);
            assertEquals(tree(payloads.get(name)), seen.get("data"), "bullmq re-read of its data: " + name);
        }
    }

    @Test
    void dataAddedByBull4jIsReadByBullmqAndItsEchoByBull4j() throws Exception {
        String q = queueName("data-j2n");
        Map<String, Object> payloads = payloads();
        Map<String, Job> jobs = new LinkedHashMap<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            // JSON null takes a NullNode: a Java null means "no data" (Node's undefined), stored as {}
            payloads.forEach((name, data) -> jobs.put(name,
                    queue.add(name, data == null ? NullNode.getInstance() : data)));
            jobs.put("javaNull", queue.add("javaNull", null));
            for (Job j : jobs.values()) {
                assertEquals(ADDED_FIELDS, hash(q, j.id()).keySet(), "bull4j's stored fields for " + j.id());
            }

            List<JsonNode> lines = node("work", q, Map.of("count", jobs.size(), "echo", true));
            Map<String, JsonNode> byId = finishedById(lines);
            assertEquals(jobs.size(), byId.size(), lines::toString);
            for (Map.Entry<String, Job> e : jobs.entrySet()) {
                JsonNode seen = byId.get(e.getValue().id());
                JsonNode expected = e.getKey().equals("javaNull") ? parse("{}") : tree(payloads.get(e.getKey()));
                assertEquals("completed", seen.get("event").asText(), seen::toString);
                assertEquals(expected, seen.get("data"), "bullmq read of " + e.getKey());
                assertEquals(expected, seen.get("returnvalue"), "bullmq echo of " + e.getKey());

                Job after = queue.getJob(e.getValue().id());
                assertEquals(JobState.COMPLETED, after.getState());
                assertEquals(expected, parse(after.returnValueJson()), "bull4j read of bullmq's echo: " + e.getKey());
            }
            assertEquals(UNICODE, byId.get(jobs.get("unicode").id()).get("data").get("text").asText());
            assertEquals(large(), parse(hash(q, jobs.get("large").id()).get("returnvalue")).get("blob").asText(),
                    "the 1 MiB echo, byte for byte");
        }
    }
}
