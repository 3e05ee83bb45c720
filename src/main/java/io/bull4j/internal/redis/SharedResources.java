package io.bull4j.internal.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce resources (event loops, timer) of the clients bull4j creates, shared by every such client with the
 * same reconnect backoff, and shut down when the last of them closes. One set per client made each Queue or
 * Worker built without a shared connection cost about three threads, and Netty logs an ERROR past 64 timers.
 */
final class SharedResources {
    private static final Map<List<Long>, ClientResources> BY_DELAY = new HashMap<>();
    private static final Map<ClientResources, Integer> USERS = new IdentityHashMap<>();

    private SharedResources() {
    }

    /** Resources with this reconnect backoff, for one more client: give them back with {@link #release}. */
    static synchronized ClientResources acquire(Duration reconnectMin, Duration reconnectMax) {
        List<Long> key = List.of(reconnectMin.toMillis(), reconnectMax.toMillis());
        ClientResources r = BY_DELAY.computeIfAbsent(key, k -> ClientResources.builder()
                .reconnectDelay(delay(reconnectMin, reconnectMax)).build());
        USERS.merge(r, 1, Integer::sum);
        return r;
    }

    /** One client fewer; the last one shuts the resources down (without waiting for their threads to end). */
    static void release(ClientResources r, Duration wait) {
        synchronized (SharedResources.class) {
            Integer users = USERS.get(r);
            if (users == null) {
                return;
            }
            if (users > 1) {
                USERS.put(r, users - 1);
                return;
            }
            USERS.remove(r);
            BY_DELAY.values().remove(r);
        }
        r.shutdown(0, wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Delay delay(Duration reconnectMin, Duration reconnectMax) {
        // equal bounds (which ConnectionOptions allows) are a constant wait: Lettuce's exponential refuses them
        return reconnectMin.toMillis() == reconnectMax.toMillis() ? Delay.constant(reconnectMin)
                : Delay.exponential(reconnectMin.toMillis(), reconnectMax.toMillis(), TimeUnit.MILLISECONDS, 2);
    }
}
