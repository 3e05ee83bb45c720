package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Shared test plumbing: one connection to the test Redis, unique queue names, bounded waits. */
final class TestSupport {
    private static Bull4jConnection connection;

    private TestSupport() {
    }

    static synchronized Bull4jConnection connection() {
        if (connection == null) {
            connection = Bull4jConnection.create(RedisTestServer.get().uri());
        }
        return connection;
    }

    static RedisCommands<String, String> redis() {
        return RedisTestServer.get().sync();
    }

    static String queueName(String hint) {
        return RedisTestServer.uniqueQueueName(hint);
    }

    static QueueOptions queueOptions() {
        return QueueOptions.builder().connection(connection()).build();
    }

    static WorkerOptions.Builder workerOptions() {
        return WorkerOptions.builder().connection(connection()).drainDelay(Duration.ofSeconds(1));
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    /**
     * Waits for a condition on Redis state that no event announces, re-checking it on a short period, for at
     * most {@code timeout}. Fails the test if it never holds.
     */
    static void eventually(Duration timeout, BooleanSupplier condition, String what) throws InterruptedException {
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
