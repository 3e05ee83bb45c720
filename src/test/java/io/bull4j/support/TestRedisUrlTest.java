package io.bull4j.support;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The harness picks its Redis from {@code BULL4J_TEST_REDIS_URL} only: a generic {@code REDIS_URL} that a developer
 * exported for an application must never send the suite's writes to that application's Redis. Each case runs the
 * harness in a child JVM with its own environment.
 */
class TestRedisUrlTest {
    /** A port nothing listens on: a harness that took REDIS_URL would report it. */
    private static final String APP_REDIS = "redis://127.0.0.1:1";

    @Test
    void genericRedisUrlIsIgnored() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("REDIS_URL", APP_REDIS);
        env.put(RedisTestServer.URL_VARIABLE, null);
        String[] uriAndPing = childHarnessUri(env).split(" ");
        assertNotEquals(APP_REDIS, uriAndPing[0], "the harness used the application's REDIS_URL");
        assertEquals("PONG", uriAndPing[1], "the harness's own server answers");
    }

    @Test
    void bull4jTestRedisUrlIsHonoured() throws Exception {
        String shared = RedisTestServer.get().uri();
        Map<String, String> env = new HashMap<>();
        env.put("REDIS_URL", APP_REDIS);
        env.put(RedisTestServer.URL_VARIABLE, shared);
        assertEquals(shared + " PONG", childHarnessUri(env));
    }

    private static String childHarnessUri(Map<String, String> env) throws Exception {
        try (ChildJvm child = ChildJvm.start(env, PrintHarnessRedis.class)) {
            return child.awaitLine(l -> l.startsWith("harness-redis "), 60).substring("harness-redis ".length());
        }
    }

    /** Prints {@code harness-redis <uri> <PING reply>} and exits (the shutdown hook stops a server it started). */
    public static final class PrintHarnessRedis {
        public static void main(String[] args) {
            RedisTestServer server = RedisTestServer.get();
            System.out.println("harness-redis " + server.uri() + " " + server.sync().ping());
        }
    }
}
