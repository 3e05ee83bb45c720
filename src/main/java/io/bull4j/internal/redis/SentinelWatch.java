package io.bull4j.internal.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Listens on every Sentinel of a {@code redis-sentinel://} URI for {@code +switch-master} of its primary, and tells
 * the link at once. Without it, open connections stay with the old primary until Sentinel demotes it, seconds after
 * the switch (Sentinel waits before it corrects a server's role, and closes that server's clients only then): the
 * old primary goes on taking writes meanwhile, and they are lost when it resyncs as the new primary's replica.
 * A Sentinel that cannot be reached at the start is left out (the READONLY replies still lead to a reconnect).
 */
final class SentinelWatch {
    private static final Logger log = LoggerFactory.getLogger(SentinelWatch.class);
    private static final String CHANNEL = "+switch-master";

    private final List<StatefulRedisPubSubConnection<String, String>> connections = new ArrayList<>();

    private SentinelWatch() {
    }

    /** Null when {@code uri} is not a Sentinel URI. {@code onSwitch} gets the message; it runs on an I/O thread. */
    static SentinelWatch start(RedisClient client, RedisURI uri, Duration timeout, Consumer<String> onSwitch) {
        String master = uri.getSentinelMasterId();
        if (master == null || uri.getSentinels().isEmpty()) {
            return null;
        }
        SentinelWatch watch = new SentinelWatch();
        for (RedisURI sentinel : uri.getSentinels()) {
            StatefulRedisPubSubConnection<String, String> c = null;
            try {
                c = client.connectPubSub(Utf8Codec.INSTANCE, sentinel);
                c.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        // "<name> <old ip> <old port> <new ip> <new port>"
                        if (CHANNEL.equals(channel) && message.startsWith(master + " ")) {
                            onSwitch.accept(message);
                        }
                    }
                });
                Await.result(c.async().subscribe(CHANNEL), timeout, "SUBSCRIBE " + CHANNEL);
                watch.connections.add(c); // Lettuce subscribes again after a reconnect
            } catch (RuntimeException e) {
                log.warn("cannot listen for failovers on Sentinel {}:{}; a failover is then noticed only when the "
                        + "old primary refuses writes", sentinel.getHost(), sentinel.getPort(), e);
                if (c != null) {
                    c.closeAsync();
                }
            }
        }
        return watch;
    }

    List<CompletableFuture<Void>> closeAsync() {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (StatefulRedisPubSubConnection<String, String> c : connections) {
            closing.add(c.closeAsync());
        }
        return closing;
    }
}
