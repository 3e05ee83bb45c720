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
