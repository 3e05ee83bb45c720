package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.RedisLink;
import io.bull4j.internal.script.ScriptRunner;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Clock;
import java.util.concurrent.CompletionStage;

/** What a Queue, a Worker and their Jobs share: the queue's keys, the Redis link, the JSON mapper and the clock. */
final class QueueContext {
    final QueueKeys keys;
    final RedisLink link;
    final ObjectMapper mapper;
    final Clock clock;

    /**
     * On a Cluster link, refuses keys without a hash tag here, at construction, so that a queue never gets as far
     * as a script that fails with CROSSSLOT. Queue and Worker both build one before touching Redis.
     */
    QueueContext(QueueKeys keys, RedisLink link, ObjectMapper mapper, Clock clock) {
        if (link.isCluster()) {
            keys.requireSingleSlot();
        }
        this.keys = keys;
        this.link = link;
        this.mapper = mapper;
        this.clock = clock;
    }

    ScriptRunner scripts() {
        return link.scripts();
    }

    RedisClusterAsyncCommands<String, String> redis() {
        return link.commands();
    }

    long now() {
        return clock.millis();
    }

    String name() {
        return keys.name();
    }

    /** Waits within the command timeout. */
    <T> T await(CompletionStage<T> stage, String what) {
        try {
            return Await.result(stage, link.commandTimeout(), what);
        } catch (RedisOutcomeUnknownException e) {
            if (e.isTimeout()) {
                link.probeAfterTimeout();
            }
            throw e;
        } catch (RedisNotAppliedException e) {
            link.noticeRefusal(e); // a plain write that a replica refused: see RedisLink#reconnectAfterReadOnly
            throw e;
        }
    }
}
