package io.bull4j.interop;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The differential suite's snapshot normalizes only what it says it does: wall-clock values, not data. */
class RedisSnapshotTest {
    private static RedisTestServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> connection;
    private static RedisCommands<byte[], byte[]> redis;
    private long now;

    @BeforeAll
    static void start() {
        server = RedisTestServer.startDedicated();
        client = RedisClient.create(server.uri());
        connection = client.connect(ByteArrayCodec.INSTANCE);
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown();
        server.close();
    }

    @BeforeEach
    void empty() {
        redis.flushall();
        now = System.currentTimeMillis();
    }

    @Test
    void timesInTheRunAreNormalizedAndExplicitOnesAreNot() {
        hset("bull:q:1", "timestamp", String.valueOf(now));
        hset("bull:q:1", "finishedOn", "1000000000000");
        redis.zadd(b("bull:q:delayed"), (double) (now + 5000) * 4096 + 3, b("1"));
        TreeMap<String, String> s = take();
        assertEquals("<t>", s.get("bull:q:1 timestamp"));
        assertEquals("1000000000000", s.get("bull:q:1 finishedOn"));
        assertEquals("zset [1@<t>*4096+3]", s.get("bull:q:delayed"));
    }

    @Test
    void dataIsComparedAsJsonValuesButStringsAndBytesExactly() {
        hset("bull:q:1", "data", "[4.9E-324,1.0,1.0E21,\"\\ud800\"]");
        hset("bull:q:2", "data", "[5e-324,1,1e+21,\"\\uD800\"]");
        hset("bull:q:3", "data", "[0.1,1,1e+21,\"?\"]");
        hset("bull:q:4", "data", "[0.10000000000000002,1,1e+21,\"\uFFFD\"]");
        TreeMap<String, String> s = take();
        assertEquals(s.get("bull:q:1 data"), s.get("bull:q:2 data"), "same doubles and strings, spelled apart");
        assertNotEquals(s.get("bull:q:3 data"), s.get("bull:q:4 data"), "other doubles, '?' against U+FFFD");
        redis.hset(b("bull:q:5"), b("name"), new byte[] {'n', (byte) 0xED, (byte) 0xA0, (byte) 0x80});
        s = take();
        assertEquals("n\\xed\\xa0\\x80", s.get("bull:q:5 name"), "bytes that are not UTF-8 are shown, not replaced");
    }

    @Test
    void theDiffNamesThePathAndBothValuesAndTheMarkerIsLeftOut() {
        hset("bull:q:1", "returnvalue", "\"a\"");
        redis.rpush(b("bull:q:wait"), b("2"), b("3"));
        redis.zadd(b("bull:q:marker"), 0, b("0"));
        TreeMap<String, String> first = take();
        redis.flushall();
        hset("bull:q:1", "returnvalue", "\"b\"");
        redis.rpush(b("bull:q:wait"), b("3"), b("2"));
        TreeMap<String, String> second = take();
        Map<String, String> d = RedisSnapshot.diff(first, second, "one", "two");
        assertEquals(2, d.size(), d.toString());
        String field = d.get("bull:q:1 returnvalue");
        assertTrue(field.contains("one: \"a\"") && field.contains("two: \"b\""), field);
        assertTrue(d.get("bull:q:wait").contains("list [2, 3]") && d.get("bull:q:wait").contains("list [3, 2]"));
        assertFalse(first.keySet().stream().anyMatch(k -> k.contains("marker")));
    }

    @Test
    void schedulerRunsAreRelativeToTheirSchedulerAndTheirGapsAndDelaysStayCompared() {
        TreeMap<String, String> first = runs(now + 1234, 60000, 500);
        redis.flushall();
        TreeMap<String, String> later = runs(now + 7777, 60000, 500);
        assertEquals(first, later, "the same schedule, started at another moment");
        assertEquals("zset [tick@<t:tick+60000>]", first.get("bull:q:repeat"));
        assertEquals("<due-timestamp>", first.get("bull:q:repeat:tick:<t:tick+60000> delay"));
        assertEquals("zset [repeat:tick:<t:tick+60000>@<t:tick+60000>*4096+0]", first.get("bull:q:delayed"));
        assertEquals("<t:tick mod every>", first.get("bull:q:repeat:tick offset"));
        redis.flushall();
        TreeMap<String, String> wrongGap = runs(now + 1234, 59999, 500);
        assertNotEquals(first.keySet(), wrongGap.keySet(), "a run at another gap has another label");
        redis.flushall();
        TreeMap<String, String> wrongDelay = runs(now + 1234, 60000, 499);
        assertEquals("<due-timestamp>", first.get("bull:q:repeat:tick:<t:tick+60000> delay"));
        assertNotEquals(first.get("bull:q:repeat:tick:<t:tick+60000> delay"),
                wrongDelay.get("bull:q:repeat:tick:<t:tick+60000> delay"), "a delay that is not due - timestamp");
        redis.flushall();
        hset("bull:q:repeat:far:1893456000000", "name", "far");
        assertEquals("far", take().get("bull:q:repeat:far:1893456000000 name"), "a run outside the window is literal");
    }

    /**
     * A scheduler {@code tick} with a completed run at {@code t0} and the next one, delayed, at {@code t0 + gap},
     * added {@code late} ms before it is due less 500 (so a delay of {@code gap - 500 + (late - 500)}).
     */
    private TreeMap<String, String> runs(long t0, long gap, long late) {
        long next = t0 + gap;
        long timestamp = t0 + 500;
        String done = "repeat:tick:" + t0;
        String pending = "repeat:tick:" + next;
        hset("bull:q:" + done, "name", "tick");
        hset("bull:q:" + done, "timestamp", String.valueOf(t0));
        hset("bull:q:" + pending, "name", "tick");
        hset("bull:q:" + pending, "timestamp", String.valueOf(timestamp));
        hset("bull:q:" + pending, "delay", String.valueOf(next - timestamp + (late - 500)));
        hset("bull:q:repeat:tick", "every", "60000");
        hset("bull:q:repeat:tick", "offset", String.valueOf(Math.floorMod(t0, 60000L)));
        redis.zadd(b("bull:q:repeat"), (double) next, b("tick"));
        redis.zadd(b("bull:q:delayed"), (double) next * 4096, b(pending));
        redis.zadd(b("bull:q:completed"), (double) t0, b(done));
        return take();
    }

    private TreeMap<String, String> take() {
        return RedisSnapshot.take(redis, now, System.currentTimeMillis());
    }

    private static void hset(String key, String field, String value) {
        redis.hset(b(key), b(field), b(value));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
