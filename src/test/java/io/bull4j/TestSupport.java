package io.bull4j;

import io.bull4j.support.TestRedis;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/** Shared test plumbing for this package: the {@link TestRedis} basics with this suite's defaults. */
final class TestSupport {
    private TestSupport() {
    }

    static Bull4jConnection connection() {
        return TestRedis.connection();
    }

    static RedisCommands<String, String> redis() {
        return TestRedis.redis();
    }

    static String queueName(String hint) {
        return TestRedis.queueName(hint);
    }

    static QueueOptions queueOptions() {
        return QueueOptions.builder().connection(connection()).build();
    }

    static WorkerOptions.Builder workerOptions() {
        return WorkerOptions.builder().connection(connection()).drainDelay(Duration.ofSeconds(1));
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return TestRedis.await(f, Duration.ofSeconds(20));
    }

    /** See {@link TestRedis#eventually}. */
    static void eventually(Duration timeout, BooleanSupplier condition, String what) throws InterruptedException {
        TestRedis.eventually(timeout, condition, what);
    }
}
