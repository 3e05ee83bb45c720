package io.bull4j.internal.script;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Cancellation requests between processes (bull4j only; lua/requestCancel.lua): a request names the job's lock
 * token and a reason, in the job's {@code cancel} key; the worker holding the lock reads the keys of its running
 * jobs and cancels those whose token is its own.
 */
public final class CancelRequests {
    static final LuaScript REQUEST = LuaScript.load("requestCancel");

    /** A request as read: the token of the attempt to cancel and the reason. */
    public record Request(String token, String reason) {
    }

    private CancelRequests() {
    }

    /** Writes a request for the job's current lock holder; false when no worker holds the job. */
    public static CompletableFuture<Boolean> request(ScriptRunner runner, QueueKeys k, String jobId, String reason,
                                                     long keepMs) {
        return runner.<Long>run(REQUEST, ScriptOutputType.INTEGER, new String[] {k.lock(jobId), k.cancel(jobId)},
                reason, Long.toString(keepMs)).thenApply(r -> r == 1L);
    }

    /** The requests for these jobs (job id to request), in one MGET. */
    public static CompletableFuture<Map<String, Request>> read(RedisClusterAsyncCommands<String, String> redis, QueueKeys k,
                                                               List<String> jobIds) {
        String[] keys = new String[jobIds.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = k.cancel(jobIds.get(i));
        }
        return redis.mget(keys).toCompletableFuture().thenApply(values -> {
            Map<String, Request> out = new LinkedHashMap<>();
            List<KeyValue<String, String>> list = new ArrayList<>(values);
            for (int i = 0; i < list.size(); i++) {
                KeyValue<String, String> kv = list.get(i);
                if (kv.hasValue()) {
                    JsonNode n = Json.tree(kv.getValue());
                    if (n != null && n.isArray() && n.size() == 2) {
                        out.put(jobIds.get(i), new Request(n.get(0).asText(), n.get(1).asText()));
                    }
                }
            }
            return out;
        });
    }
}
