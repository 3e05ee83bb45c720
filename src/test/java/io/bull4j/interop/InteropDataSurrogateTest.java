package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Backoff;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.bull4j.interop.InteropDataRun.SCRIPTED;
import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Lone UTF-16 surrogates, which JavaScript and Java strings both allow: whatever bull4j writes for them is byte for
 * byte what bullmq writes for the same input, compared in Redis. bullmq escapes them in JSON (data, progress,
 * return value), keeps their three-byte form in a name, id, worker name and the options' jobId (its msgpack
 * encoder), and sends U+FFFD for them in a log line or failed reason (a plain string argument). Both sides read
 * the other's back as the same strings.
 */
class InteropDataSurrogateTest {
    /** A lone high and a lone low surrogate, and a pair, which must stay a pair. */
    static final String S = "a\uD800b\uDC00c\uD83D\uDE00";
    /** What a log line or a failed reason holds once stored: the lone ones replaced, the pair kept. */
    static final String S_REPLACED = "a\uFFFDb\uFFFDc\uD83D\uDE00";
    /** Hash fields that hold clock times or stack traces, which differ between any two runs or languages. */
    static final List<String> TIMES = List.of("timestamp", "processedOn", "finishedOn", "stacktrace");

    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> bytes;

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
        client = RedisClient.create(RedisTestServer.get().uri());
        bytes = client.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterAll
    static void closeBytes() {
        if (bytes != null) {
            bytes.close();
            client.shutdown();
        }
    }

    private static RedisCommands<byte[], byte[]> raw() {
        return bytes.sync();
    }

    /** Bytes as a string, one char per byte, so that two byte strings compare and print. */
    private static String latin1(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
    }

    /** The job key as the bytes bullmq names it (a lone surrogate in its three-byte form). */
    private static byte[] jobKey(String q, String latin1Id) {
        return ("bull:" + q + ":" + latin1Id).getBytes(StandardCharsets.ISO_8859_1); // queue names are ASCII
    }

    private static Map<String, String> rawHash(String q, String latin1Id) {
        Map<String, String> out = new TreeMap<>();
        raw().hgetall(jobKey(q, latin1Id)).forEach((k, v) -> out.put(latin1(k), latin1(v)));
        TIMES.forEach(out::remove);
        return out;
    }

    private static List<String> rawList(String q, String suffix) {
        return raw().lrange(jobKey(q, suffix), 0, -1).stream().map(InteropDataSurrogateTest::latin1).toList();
    }

    /**
     * The events of the stream, without their ids, the due times of delayed events and drained (written when a
     * worker finds the queue empty, which depends on when the run's worker is closed).
     */
    private static List<Map<String, String>> rawEvents(String q) {
        List<Map<String, String>> out = new ArrayList<>();
        for (StreamMessage<byte[], byte[]> m : raw().xrange(jobKey(q, "events"), Range.create("-", "+"))) {
            Map<String, String> e = new LinkedHashMap<>();
            m.getBody().forEach((k, v) -> e.put(latin1(k), latin1(v)));
            if ("delayed".equals(e.get("event"))) {
                e.remove("delay");
            }
            if (!"drained".equals(e.get("event"))) {
                out.add(e);
            }
        }
        return out;
    }

    /** The jobs both sides run, in order: [data, bullmq opts]. Every string holds S. */
    static List<Object[]> jobs() {
        Map<String, Object> ok = new LinkedHashMap<>();
        ok.put("v", S);
        ok.put(S, 1);
        ok.put("progress", List.of(Map.of("p", S)));
        ok.put("logs", List.of("l" + S));
        ok.put("returns", "r" + S);
        return List.of(new Object[] {ok, Map.of()},
                new Object[] {Map.of("fail", "e" + S), Map.of()},
                new Object[] {Map.of("fail", "e" + S), Map.of("attempts", 2)},
                new Object[] {Map.of("fail", "e" + S), Map.of("attempts", 2, "backoff", 60_000)});
    }

    /** Attempts the jobs take: ok 1, failing 1, retried at once 2, backed off 1 (it then waits in delayed). */
    static final int ATTEMPTS = 5;

    private static List<Map<String, Object>> adds() {
        List<Map<String, Object>> adds = new ArrayList<>();
        for (Object[] j : jobs()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> opts = (Map<String, Object>) j[1];
            adds.add(job("n" + S, j[0], opts));
        }
        return adds;
    }

    @Test
    void whatABull4jWorkerWritesIsWhatABullmqWorkerWrites() throws Exception {
        String qn = queueName("lone-n");
        String qj = queueName("lone-j");
        node("add", qn, adds());
        node("add", qj, adds());
        List<JsonNode> nodeRun = node("work", qn, Map.of("count", ATTEMPTS, "workerOpts", Map.of("name", "w" + S)));
        assertEquals(ATTEMPTS, nodeRun.stream().filter(l -> l.has("id")).count(), nodeRun::toString);
        InteropDataRun.runUntil(qj, ATTEMPTS, SCRIPTED, workerOptions().name("w" + S).build());

        for (int id = 1; id <= jobs().size(); id++) {
            String at = "job " + id;
            assertEquals(rawHash(qn, "" + id), rawHash(qj, "" + id), at + ": every field but the times, as bytes");
            assertEquals(rawList(qn, id + ":logs"), rawList(qj, id + ":logs"), at + ": log lines");
        }
        assertEquals(rawEvents(qn), rawEvents(qj), "the events, field by field, as bytes");

        // what each stored: JSON escapes, the three-byte form in names, U+FFFD in log lines and failed reasons
        Map<String, String> ok = rawHash(qj, "1");
        assertTrue(ok.get("data").contains("\"v\":\"a\\ud800b\\udc00c"), ok.get("data"));
        assertEquals("\"ra\\ud800b\\udc00c\u00f0\u009f\u0098\u0080\"", ok.get("returnvalue"));
        assertEquals("na\u00ed\u00a0\u0080b\u00ed\u00b0\u0080c\u00f0\u009f\u0098\u0080", ok.get("name"));
        assertEquals(List.of(latin1(("l" + S_REPLACED).getBytes(StandardCharsets.UTF_8))), rawList(qj, "1:logs"));
        assertEquals(latin1(("e" + S_REPLACED).getBytes(StandardCharsets.UTF_8)), rawHash(qj, "2").get("failedReason"));

        // each side reads the other's as the strings that were written
        try (Queue queue = new Queue(qn, queueOptions())) {
            Job job = queue.getJob("1");
            assertEquals("n" + S, job.name());
            assertEquals(S, job.data(Map.class).get("v"));
            assertEquals(1, job.data(Map.class).get(S));
            assertEquals(Map.of("p", S), job.progress());
            assertEquals("r" + S, job.returnValue(String.class));
            assertEquals("w" + S, job.processedBy());
            assertEquals(List.of("l" + S_REPLACED), redis().lrange(key(qn, "1:logs"), 0, -1));
            assertEquals("e" + S_REPLACED, queue.getJob("2").failedReason());
            assertEquals("e" + S, queue.getJob("4").failedReason(), "a backed-off retry keeps the three-byte form");
        }
        // bullmq reads bull4j's as it reads its own (its client decodes a name's three-byte form as U+FFFDs)
        List<JsonNode> seen = node("getJobs", qj, List.of("1", "2"));
        List<JsonNode> own = node("getJobs", qn, List.of("1", "2"));
        for (int i = 0; i < 2; i++) {
            for (String field : List.of("name", "data", "progress", "returnvalue", "failedReason", "logs")) {
                assertEquals(own.get(i).get(field), seen.get(i).get(field), "bullmq's " + field + " of job " + (i + 1));
            }
        }
        assertEquals(S, seen.get(0).get("data").get("v").asText());
        assertEquals(S, seen.get(0).get("progress").get("p").asText());
        assertEquals("r" + S, seen.get(0).get("returnvalue").asText());
        assertEquals("l" + S_REPLACED, seen.get(0).get("logs").get("logs").get(0).asText());
        assertEquals("e" + S_REPLACED, seen.get(1).get("failedReason").asText());
    }

    @Test
    void whatABull4jProducerWritesIsWhatABullmqProducerWrites() throws Exception {
        String qn = queueName("lone-add-n");
        String qj = queueName("lone-add-j");
        List<Map<String, Object>> adds = new ArrayList<>(adds());
        adds.add(job("n" + S, Map.of("v", S), Map.of("jobId", "id" + S)));
        node("add", qn, adds);
        try (Queue queue = new Queue(qj, queueOptions())) {
            for (Object[] j : jobs()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> o = (Map<String, Object>) j[1];
                JobOptions.Builder b = JobOptions.builder();
                if (o.containsKey("attempts")) {
                    b.attempts((Integer) o.get("attempts"));
                }
                if (o.containsKey("backoff")) {
                    b.backoff(Backoff.fixed(Duration.ofMillis((Integer) o.get("backoff"))));
                }
                queue.add("n" + S, j[0], b.build());
            }
            Job custom = queue.add("n" + S, Map.of("v", S), JobOptions.builder().jobId("id" + S).build());
            assertEquals("id" + S, custom.id());
            String wtf8Id = "ida\u00ed\u00a0\u0080b\u00ed\u00b0\u0080c\u00f0\u009f\u0098\u0080";
            for (String jobId : List.of("1", "2", "3", "4", wtf8Id)) {
                Map<String, String> theirs = rawHash(qn, jobId);
                assertFalse(theirs.isEmpty(), "bullmq stored job " + jobId);
                assertEquals(theirs, rawHash(qj, jobId), "job " + jobId + ": every field but the times, as bytes");
            }
            assertEquals(rawList(qn, "wait"), rawList(qj, "wait"), "the ids in wait, as bytes");
            assertEquals(rawEvents(qn), rawEvents(qj), "the events, as bytes");
        }
        // and bull4j reads bullmq's custom id and data back as they were given
        try (Queue nodes = new Queue(qn, queueOptions())) {
            Job theirs = nodes.getJob("id" + S);
            assertNotNull(theirs, "bull4j finds bullmq's job by the same id");
            assertEquals("n" + S, theirs.name());
            assertEquals(Map.of("v", S), theirs.data(Map.class));
            assertEquals("id" + S, theirs.opts().jobId());
        }
    }
}
