package io.bull4j;

import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.DedicatedConnection;
import io.bull4j.internal.redis.RedisLink;
import io.lettuce.core.KeyValue;
import io.lettuce.core.KillArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A call in flight on a connection that breaks fails at once and is not sent again after the reconnect, on every
 * Lettuce bull4j runs on. Lettuce 6.7 and later do it themselves (auto-reconnect with REJECT_COMMANDS); before
 * 6.7 (Spring Boot 3.5 manages 6.6) Lettuce kept such calls and re-sent them on the new connection, so a worker's
 * fetch blocked until its bound, and a blocking pop re-sent after its caller gave up took what it found. Run with
 * {@code -Dlettuce.version=6.6.0.RELEASE} to cover the old Lettuce here; BootLettuceTest runs it in a child JVM.
 */
class InFlightOnDisconnectTest {
    private static final int BLOCK_SECONDS = 30;

    @Test
    void aBlockedCallOnABrokenConnectionFailsAtOnceAndIsNotSentAgain() throws Exception {
        try (Bull4jConnection conn = Bull4jConnection.create(io.bull4j.support.RedisTestServer.get().bull4jUri(),
                Duration.ofSeconds(2))) {
            RedisLink link = conn.link();
            DedicatedConnection dedicated = link.openDedicated(null);
            check(link.commands(), queueName("inflight-shared"));
            check(dedicated.commands(), queueName("inflight-dedicated"));
        }
    }

    /**
     * The same on a Redis Cluster: the pop runs on the node connection behind bull4j's cluster connection, which
     * Lettuce reports when it breaks.
     */
    @Test
    void onAClusterABlockedCallOnABrokenNodeConnectionFailsAtOnceAndIsNotSentAgain() throws Exception {
        io.bull4j.support.RedisTestCluster cluster = io.bull4j.support.RedisTestCluster.get();
        String name = "bull4j-inflight-" + queueName("c");
        String key = ClusterQueueTest.PREFIX + ":" + queueName("inflight-cluster") + ":marker";
        try (Bull4jConnection conn = Bull4jConnection.createCluster(cluster.seedUris(), Duration.ofSeconds(2))) {
            RedisClusterAsyncCommands<String, String> commands = conn.link().openDedicated(name).commands();
            assertEquals(0L, commands.zcard(key).get(5, TimeUnit.SECONDS)); // the key's node connection is open
            CompletableFuture<KeyValue<String, ScoredValue<String>>> pop =
                    commands.bzpopmin(BLOCK_SECONDS, key).toCompletableFuture();
            AtomicReference<Runnable> kill = new AtomicReference<>();
            eventually(Duration.ofSeconds(10), () -> {
                for (String seed : cluster.seedUris()) {
                    java.net.URI uri = java.net.URI.create(seed);
                    var node = cluster.sync().getConnection(uri.getHost(), uri.getPort());
                    for (String line : node.clientList().split("\\R")) {
                        if (line.contains(" name=" + name + " ") && line.contains("cmd=bzpopmin")) {
                            long id = Long.parseLong(line.substring(3, line.indexOf(' ')));
                            kill.set(() -> node.clientKill(KillArgs.Builder.id(id)));
                            return true;
                        }
                    }
                }
                return false;
            }, "the pop is blocked on a node");
            kill.get().run();

            RedisOutcomeUnknownException failed = assertThrows(RedisOutcomeUnknownException.class,
                    () -> Await.result(pop, Duration.ofSeconds(10), "BZPOPMIN"));
            assertFalse(failed.isTimeout(), "the pop in flight fails when its node connection breaks, not at a "
                    + "timeout: " + failed);
            // the same node connection answers again, which it would not behind a re-sent pop
            eventually(Duration.ofSeconds(10), () -> {
                try {
                    return commands.zcard(key).get(2, TimeUnit.SECONDS) == 0L;
                } catch (Exception notYet) {
                    return false;
                }
            }, "the node connection is back");
            cluster.sync().zadd(key, 1, "left");
            assertEquals(1L, commands.zcard(key).get(5, TimeUnit.SECONDS), "no pop was sent again to take it");
            cluster.sync().del(key);
        }
    }

    private static void check(RedisClusterAsyncCommands<String, String> commands, String key) throws Exception {
        long id = commands.clientId().get(5, TimeUnit.SECONDS);
        CompletableFuture<KeyValue<String, ScoredValue<String>>> pop =
                commands.bzpopmin(BLOCK_SECONDS, key).toCompletableFuture();
        eventually(Duration.ofSeconds(10), () -> redis().clientList().lines()
                .anyMatch(l -> l.startsWith("id=" + id + " ") && l.contains("cmd=bzpopmin")), "the pop is blocked");
        redis().clientKill(KillArgs.Builder.id(id));

        // well before the pop's own timeout: the break fails it (a re-sent pop would block again on the new socket)
        RedisOutcomeUnknownException failed = assertThrows(RedisOutcomeUnknownException.class,
                () -> Await.result(pop, Duration.ofSeconds(10), "BZPOPMIN"));
        assertFalse(failed.isTimeout(), "the pop in flight fails when its connection breaks, not at a timeout: "
                + failed);

        // reconnected: a PING answers, which it would not behind a re-sent pop blocked for BLOCK_SECONDS
        eventually(Duration.ofSeconds(10), () -> {
            try {
                return "PONG".equals(commands.ping().get(2, TimeUnit.SECONDS));
            } catch (Exception notYet) {
                return false;
            }
        }, "the connection is back");
        redis().zadd(key, 1, "left");
        assertEquals("PONG", commands.ping().get(5, TimeUnit.SECONDS));
        assertEquals(1L, redis().zcard(key), "no pop was sent again to take it");
        redis().del(key);
    }
}
