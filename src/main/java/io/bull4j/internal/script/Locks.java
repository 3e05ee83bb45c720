package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The lock transitions (lua/takeLock.lua, extendLock.lua, extendLocks.lua, releaseLock.lua). Each acts only
 * with the owner's token.
 */
public final class Locks {
    static final LuaScript TAKE = LuaScript.load("takeLock");
    static final LuaScript EXTEND = LuaScript.load("extendLock");
    static final LuaScript EXTEND_ALL = LuaScript.load("extendLocks");
    static final LuaScript RELEASE = LuaScript.load("releaseLock");

    private Locks() {
    }

    public static CompletableFuture<Boolean> take(ScriptRunner runner, QueueKeys k, String jobId, String token,
                                                  long lockMs) {
        return runner.<Long>run(TAKE, ScriptOutputType.INTEGER, new String[] {k.lock(jobId)}, token,
                Long.toString(lockMs)).thenApply(r -> r == 1L);
    }

    public static CompletableFuture<Boolean> extend(ScriptRunner runner, QueueKeys k, String jobId, String token,
                                                    long lockMs) {
        return runner.<Long>run(EXTEND, ScriptOutputType.INTEGER, new String[] {k.lock(jobId), k.stalled()}, token,
                Long.toString(lockMs), jobId).thenApply(r -> r == 1L);
    }

    /** Renews all the given locks (job id to token) in one call; returns the ids whose lock was lost. */
    public static CompletableFuture<List<String>> extendAll(ScriptRunner runner, QueueKeys k,
                                                            Map<String, String> tokensById, long lockMs) {
        List<String> args = new ArrayList<>(2 + tokensById.size() * 2);
        args.add(k.base());
        args.add(Long.toString(lockMs));
        tokensById.forEach((id, token) -> {
            args.add(id);
            args.add(token);
        });
        return runner.<List<Object>>run(EXTEND_ALL, ScriptOutputType.MULTI, new String[] {k.stalled()},
                args.toArray(new String[0])).thenApply(r -> {
                    List<String> lost = new ArrayList<>(r.size());
                    r.forEach(id -> lost.add(String.valueOf(id)));
                    return lost;
                });
    }

    public static CompletableFuture<Boolean> release(ScriptRunner runner, QueueKeys k, String jobId, String token) {
        return runner.<Long>run(RELEASE, ScriptOutputType.INTEGER, new String[] {k.lock(jobId)}, token)
                .thenApply(r -> r == 1L);
    }
}
