package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/** Reading the rate limit and the global concurrency: lua/getRateLimitTtl.lua and lua/isMaxed.lua. */
public final class RateLimits {
    static final LuaScript TTL = LuaScript.load("getRateLimitTtl");
    static final LuaScript MAXED = LuaScript.load("isMaxed");

    private RateLimits() {
    }

    /** The ms left in a full window for {@code maxJobs} (0: the queue's global max), as BullMQ answers. */
    public static CompletableFuture<Long> ttl(ScriptRunner runner, QueueKeys k, long maxJobs) {
        return runner.run(TTL, ScriptOutputType.INTEGER, new String[] {k.limiter(), k.meta()},
                Long.toString(maxJobs));
    }

    public static CompletableFuture<Boolean> isMaxed(ScriptRunner runner, QueueKeys k) {
        return runner.<Long>run(MAXED, ScriptOutputType.INTEGER, new String[] {k.meta(), k.active()})
                .thenApply(n -> n == 1L);
    }
}
