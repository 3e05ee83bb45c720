package io.bull4j.internal.redis;

import io.bull4j.Bull4jException;
import io.bull4j.RedisException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for Redis futures within a bound and translates Lettuce's failures, once, into bull4j's types. */
public final class Await {
    private Await() {
    }

    public static <T> T result(CompletionStage<T> stage, Duration timeout, String what) {
        try {
            return stage.toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            stage.toCompletableFuture().cancel(false);
            throw new RedisException(what + ": no answer from Redis within " + timeout, e, true);
        } catch (ExecutionException e) {
            throw translate(e.getCause(), what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Bull4jException(what + ": interrupted", e);
        }
    }

    /** Maps a failure from a Redis future to a bull4j exception, leaving bull4j's own exceptions as they are. */
    public static RuntimeException translate(Throwable t, String what) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof Bull4jException) {
            return (Bull4jException) t;
        }
        if (t instanceof RedisCommandTimeoutException) {
            return new RedisException(what + ": " + t.getMessage(), t, true);
        }
        if (t instanceof RedisConnectionException) {
            return new RedisException(what + ": Redis unreachable: " + t.getMessage(), t, false);
        }
        if (t instanceof CancellationException) {
            return new RedisException(what + ": cancelled", t, false);
        }
        return new RedisException(what + ": " + t.getMessage(), t, false);
    }
}
