package io.bull4j.internal.script;

import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.ServerClock;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs scripts by EVALSHA, falling back to EVAL (which also caches the script) when Redis answers NOSCRIPT.
 * Every run is bounded: its future completes within the budget (the command timeout unless given), with a
 * bull4j exception, and the script carries a deadline in Redis's time so that it never starts after that
 * (see {@link ServerClock} and lua/include/deadline.lua).
 */
public final class ScriptRunner {
    private final RedisClusterAsyncCommands<String, String> commands;
    private final Duration timeout;
    private final ServerClock serverClock;
    /** Told of every READONLY reply: the link then reconnects to whatever the address leads to now. */
    private final Runnable onReadOnly;
    /** Told of every call that got no answer in time: the link then checks that its connection still answers. */
    private final Runnable onTimeout;
    /**
     * Calls in flight whose budget is longer than the command timeout (a big flow's single script): a call queued
     * behind one on the same connection may time out while Redis is healthy, so no PING probe is made meanwhile.
     */
    private final java.util.concurrent.atomic.AtomicInteger longCalls = new java.util.concurrent.atomic.AtomicInteger();
    /** Whether scripts are refused for now (a Sentinel is promoting a replica: see RedisLink#writesHeld). */
    private final java.util.function.BooleanSupplier held;

    public ScriptRunner(RedisClusterAsyncCommands<String, String> commands, Duration timeout, ServerClock serverClock,
                        Runnable onReadOnly, Runnable onTimeout, java.util.function.BooleanSupplier held) {
        this.commands = commands;
        this.timeout = timeout;
        this.serverClock = serverClock;
        this.onReadOnly = onReadOnly;
        this.onTimeout = onTimeout;
        this.held = held;
    }

    public Duration timeout() {
        return timeout;
    }

    public <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return run(timeout, script, type, keys, args);
    }

    /** Runs within {@code budget} instead of the command timeout (a bulk of many scripts sent together). */
    public <T> CompletableFuture<T> run(Duration budget, LuaScript script, ScriptOutputType type, String[] keys,
                                       String... args) {
        if (keys.length != script.keyCount()) {
            throw new IllegalStateException(script.name() + " declares " + script.keyCount() + " keys, called with "
                    + keys.length);
        }
        if (held.getAsBoolean()) {
            return CompletableFuture.failedFuture(new io.bull4j.RedisNotAppliedException(script.name()
                    + ": not sent: a Sentinel is promoting a replica, and the primary's writes would be lost", null));
        }
        boolean isLong = budget.compareTo(timeout) > 0;
        if (isLong) {
            longCalls.incrementAndGet();
        }
        String[] withDeadline = Arrays.copyOf(args, args.length + 1);
        withDeadline[args.length] = Long.toString(serverClock.deadline(budget));
        // the command in flight, so that a timeout cancels it and Lettuce never writes or re-sends it
        AtomicReference<RedisFuture<T>> inFlight = new AtomicReference<>();
        RedisFuture<T> first = commands.evalsha(script.sha(), type, keys, withDeadline);
        inFlight.set(first);
        CompletableFuture<T> result = first.toCompletableFuture().handle((value, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException) {
                RedisFuture<T> second = commands.eval(script.source(), type, keys, withDeadline);
                inFlight.set(second);
                return second.toCompletableFuture().whenComplete((v, e) -> noticeReadOnly(e));
            }
            noticeReadOnly(cause);
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
        if (isLong) {
            result.whenComplete((v, e) -> longCalls.decrementAndGet()); // also when cancelled on its timeout
        }
        return Await.within(result, budget, script.name(), () -> {
            inFlight.get().cancel(false);
            onTimeout.run();
        }, !script.reportsUnknownAtOnce());
    }

    /** {@return whether a call with a budget longer than the command timeout is in flight} */
    public boolean longCallInFlight() {
        return longCalls.get() > 0;
    }

    private void noticeReadOnly(Throwable error) {
        if (error != null && Await.isReadOnlyReply(error)) {
            onReadOnly.run();
        }
    }

    /** Runs and waits, within the command timeout. */
    public <T> T call(LuaScript script, ScriptOutputType type, String[] keys, String... args) {
        return Await.result(run(script, type, keys, args), timeout, script.name());
    }
}
