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

/**
 * Listens on every Sentinel of a {@code redis-sentinel://} URI for the failovers of its primary, and tells the link.
 * Without it, open connections stay with the old primary until Sentinel demotes it, seconds after the switch
 * (Sentinel waits before it corrects a server's role, and closes that server's clients only then): the old primary
 * goes on taking writes meanwhile, and they are lost when it resyncs as the new primary's replica. The leader
 * Sentinel announces that it is about to promote a replica ({@code +failover-state-send-slaveof-noone}, about a
 * second before the switch is announced): from then on a write to the old primary would be lost too, so the link
 * holds writes back until {@code +switch-master} (or {@code -failover-abort-slave-timeout}). A Sentinel that cannot
 * be reached at the start is left out (the READONLY replies still lead to a reconnect).
 */
final class SentinelWatch {
    private static final Logger log = LoggerFactory.getLogger(SentinelWatch.class);
    private static final String SWITCH = "+switch-master";
    private static final String PROMOTING = "+failover-state-send-slaveof-noone";
    private static final String ABORT = "-failover-abort-slave-timeout";

    /** What the link does on a failover's steps; called on Lettuce's I/O threads. */
    interface Steps {
        /** A replica is about to be promoted: writes to the primary would be lost from now on. */
        void promoting(String announcement);

        /** The new primary is announced ({@code "<name> <old ip> <old port> <new ip> <new port>"}). */
        void switched(String announcement);

        /** The promotion was given up: the primary stays. */
        void aborted(String announcement);
    }

    private final List<StatefulRedisPubSubConnection<String, String>> connections = new ArrayList<>();

    private SentinelWatch() {
    }

    /** Null when {@code uri} is not a Sentinel URI. */
    static SentinelWatch start(RedisClient client, RedisURI uri, Duration timeout, Steps steps) {
        String master = uri.getSentinelMasterId();
        if (master == null || uri.getSentinels().isEmpty()) {
            return null;
        }
        // the instance announcements end in "@ <name> <ip> <port>"; the switch starts with "<name> "
        String ofOurs = " @ " + master + " ";
        SentinelWatch watch = new SentinelWatch();
        for (RedisURI sentinel : uri.getSentinels()) {
            StatefulRedisPubSubConnection<String, String> c = null;
            try {
                c = client.connectPubSub(Utf8Codec.INSTANCE, sentinel);
                c.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        if (SWITCH.equals(channel) && message.startsWith(master + " ")) {
                            steps.switched(message);
                        } else if (PROMOTING.equals(channel) && message.contains(ofOurs)) {
                            steps.promoting(message);
                        } else if (ABORT.equals(channel) && message.contains(ofOurs)) {
                            steps.aborted(message);
                        }
                    }
                });
                Await.result(c.async().subscribe(SWITCH, PROMOTING, ABORT), timeout, "SUBSCRIBE " + SWITCH);
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
