package io.bull4j.support;

import io.bull4j.Bull4jConnection;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What every test suite shares about the test Redis: one bull4j connection to it, a plain connection for reading
 * state, unique queue names, readers of a queue's keys and events stream, and bounded waits. The suites' own kits
 * add their defaults on top.
 */
public final class TestRedis {
    private static Bull4jConnection connection;

    private TestRedis() {
    }

    public static synchronized Bull4jConnection connection() {
        if (connection == null) {
            connection = Bull4jConnection.create(RedisTestServer.get().bull4jUri());
        }
        return connection;
    }

    public static RedisCommands<String, String> redis() {
        return RedisTestServer.get().sync();
    }

    public static String queueName(String hint) {
        return RedisTestServer.uniqueQueueName(hint);
    }

    /** A key of queue {@code q} under the default prefix, written out as BullMQ names it. */
    public static String key(String q, String suffix) {
        return "bull:" + q + ":" + suffix;
    }

    public static Map<String, String> hash(String q, String jobId) {
        return redis().hgetall(key(q, jobId));
    }

    /** Every entry of the queue's events stream, oldest first, as field maps. */
    public static List<Map<String, String>> stream(String q) {
        List<Map<String, String>> out = new ArrayList<>();
        for (StreamMessage<String, String> m : redis().xrange(key(q, "events"), Range.create("-", "+"))) {
            out.add(m.getBody());
        }
        return out;
    }

    /** Entries of one event name for one job (jobId null: any job), oldest first. */
    public static List<Map<String, String>> events(String q, String event, String jobId) {
        List<Map<String, String>> out = new ArrayList<>();
        for (Map<String, String> e : stream(q)) {
            if (event.equals(e.get("event")) && (jobId == null || jobId.equals(e.get("jobId")))) {
                out.add(e);
            }
        }
        return out;
    }

    /** The event names of one job, in stream order. */
    public static List<String> eventNames(String q, String jobId) {
        List<String> out = new ArrayList<>();
        for (Map<String, String> e : stream(q)) {
            if (jobId.equals(e.get("jobId"))) {
                out.add(e.get("event"));
            }
        }
        return out;
    }

    public static <T> T await(CompletableFuture<T> f, Duration timeout) throws Exception {
        return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Waits for a condition on state that no event announces, re-checking it every 20 ms, for at most
     * {@code timeout}. Fails the test if it never holds.
     */
    public static void eventually(Duration timeout, BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Object gate = new Object();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            synchronized (gate) {
                gate.wait(20);
            }
        }
    }
}
