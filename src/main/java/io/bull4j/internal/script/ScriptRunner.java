package io.bull4j.internal.script;

import io.bull4j.internal.redis.Await;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Runs scripts by EVALSHA, falling back to EVAL (which also caches the script) when Redis answers NOSCRIPT. */
public final class ScriptRunner {
    private final RedisClusterAsyncCommands<String, String> commands;
    private final Duration timeout;

    public ScriptRunner(RedisClusterAsyncCommands<String, String> commands, Duration timeout) {
        this.commands = commands;
        this.timeout = timeout;
    }

    public Duration timeout() {
        return timeout;
    }

    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        if (keys.length != script.keyCount()) {
            throw new IllegalStateException(script.name() + " declares " + script.keyCount() + " keys, called with "
                    + keys.length);
        }
        CompletableFuture<T> first = commands.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        return first.handle((value, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException) {
                return commands.<T>eval(script.source(), type, keys, args).toCompletableFuture();
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /** Runs and waits, within the command timeout. */
    public <T> T call(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return Await.result(run(script, type, keys, args), timeout, script.name());
    }
}
