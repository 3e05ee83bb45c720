package io.bull4j;

import io.bull4j.internal.redis.RedisLink;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Duration;

/**
 * A Redis connection that many {@link Queue}s and {@link Worker}s can share. Thread-safe. Workers open one more
 * connection each, from the same client, for their blocking fetch.
 *
 * <pre>{@code
 * try (Bull4jConnection redis = Bull4jConnection.create("redis://localhost:6379")) {
 *     Queue emails = new Queue("emails", QueueOptions.builder().connection(redis).build());
 *     ...
 * }
 * }</pre>
 *
 * <p>Closing it closes the connections bull4j opened, and the Lettuce client only if bull4j created it: a
 * client passed to {@link #using(RedisClient)} stays the caller's to shut down.
 */
public final class Bull4jConnection implements AutoCloseable {
    /** How long any Redis command may take before a {@link RedisException} with {@code isTimeout()}. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final RedisLink link;

    private Bull4jConnection(RedisLink link) {
        this.link = link;
    }

    /** From {@code REDIS_URL} when set, else {@code redis://localhost:6379}. */
    public static Bull4jConnection create() {
        return create(defaultUri());
    }

    /** From a URI: {@code redis://[[user]:password@]host[:port][/db]} or {@code rediss://} for TLS. */
    public static Bull4jConnection create(String uri) {
        return create(uri, DEFAULT_COMMAND_TIMEOUT);
    }

    public static Bull4jConnection create(String uri, Duration commandTimeout) {
        return new Bull4jConnection(RedisLink.open(uri, checkTimeout(commandTimeout)));
    }

    /** On a Lettuce client the caller owns and shuts down. */
    public static Bull4jConnection using(RedisClient client) {
        return new Bull4jConnection(RedisLink.using(client, DEFAULT_COMMAND_TIMEOUT));
    }

    /** On a Redis Cluster client the caller owns; queue keys need a hash tag, e.g. a prefix {@code {bull}}. */
    public static Bull4jConnection using(RedisClusterClient client) {
        return new Bull4jConnection(RedisLink.using(client, DEFAULT_COMMAND_TIMEOUT));
    }

    static String defaultUri() {
        String env = System.getenv("REDIS_URL");
        return env != null && !env.isBlank() ? env : "redis://localhost:6379";
    }

    private static Duration checkTimeout(Duration timeout) {
        ValidationException.check(timeout != null && !timeout.isNegative() && !timeout.isZero(), "commandTimeout",
                "must be positive (was " + timeout + ")");
        return timeout;
    }

    /** The server's version, as {@code INFO} reports it. */
    public String serverVersion() {
        return link.serverVersion();
    }

    RedisLink link() {
        return link;
    }

    @Override
    public void close() {
        link.close();
    }
}
