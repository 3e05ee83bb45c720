package io.bull4j.internal.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceVersion;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Predicate;

/**
 * Fails the calls in flight on a connection that breaks, on a Lettuce older than 6.7 (Spring Boot 3.5's dependency
 * management gives 6.6). With auto-reconnect and {@code REJECT_COMMANDS}, Lettuce 6.7 and later fail them at once
 * ("Connection disconnected"); before 6.7 Lettuce keeps them and sends them again after the reconnect, whatever the
 * disconnected behaviour. Then a call is not reported until its bound, a worker's blocking fetch re-sent after its
 * wait gave up takes a marker nobody reads, and a plain write runs after its caller was told the outcome is unknown.
 * Lettuce reports the break to this listener, on the connection's I/O thread, after it has set those calls aside
 * and before it reconnects: they are cancelled there (bull4j reports them as unknown outcomes, as Lettuce 6.7's
 * failure). Only connections the given test names as bull4j's own are touched.
 */
final class InFlightOnDisconnect implements RedisConnectionStateListener {
    private static final Logger log = LoggerFactory.getLogger(InFlightOnDisconnect.class);

    private final Predicate<RedisChannelHandler<?, ?>> ours;

    private InFlightOnDisconnect(Predicate<RedisChannelHandler<?, ?>> ours) {
        this.ours = ours;
    }

    /**
     * Registers one on {@code client} when its Lettuce re-sends the calls in flight although it rejects commands
     * while disconnected; returns it (for {@link #remove}), or null when none is needed.
     */
    static InFlightOnDisconnect register(AbstractRedisClient client, Predicate<RedisChannelHandler<?, ?>> ours) {
        ClientOptions options = client.getOptions();
        if (!resendsInFlight(LettuceVersion.getVersion()) || !options.isAutoReconnect()
                || options.getDisconnectedBehavior() != ClientOptions.DisconnectedBehavior.REJECT_COMMANDS) {
            return null;
        }
        InFlightOnDisconnect listener = new InFlightOnDisconnect(ours);
        client.addListener(listener);
        return listener;
    }

    static void remove(AbstractRedisClient client, InFlightOnDisconnect listener) {
        if (listener != null) {
            client.removeListener(listener);
        }
    }

    /**
     * Whether a Lettuce of this version keeps a broken connection's calls to send them again (before 6.7). A version
     * that cannot be read (a repackaged jar) counts as one: on a newer Lettuce there is then nothing to cancel, and no
     * {@code reset()} to call (logged at DEBUG).
     */
    static boolean resendsInFlight(String version) {
        if (version == null) {
            return true;
        }
        String[] parts = version.split("[.\\-]");
        try {
            int major = Integer.parseInt(parts[0]);
            int minor = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return major < 6 || (major == 6 && minor < 7);
        } catch (NumberFormatException e) {
            return true;
        }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        try {
            if (!ours.test(connection)) {
                return;
            }
            // cancels what the break set aside to send again (through the connection's writers to its endpoint);
            // Lettuce 7 has no reset(), so it is not named here
            connection.getClass().getMethod("reset").invoke(connection);
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.debug("could not fail the calls in flight on a broken connection", e);
        }
    }
}
