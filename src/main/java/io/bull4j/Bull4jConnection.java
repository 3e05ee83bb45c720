package io.bull4j;

import io.bull4j.internal.redis.RedisLink;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

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
 * <p>On Redis Cluster use {@link #createCluster(String...)} or {@link #using(RedisClusterClient)}, and give every
 * queue a hash tag (prefix {@code "{bull}"} or a name like {@code "{emails}"}).
 *
 * <p>A connection bull4j opens reconnects by itself after a fault, with an exponential backoff between tries kept
 * between {@link ConnectionOptions#reconnectDelayMin()} and {@link ConnectionOptions#reconnectDelayMax()} (50 ms and
 * 1 s by default; see {@link ConnectionOptions.Builder#reconnectDelay(Duration, Duration)}). While it is
 * disconnected, calls fail at once with a {@link RedisNotAppliedException}; nothing is queued to run later.
 *
 * <p>Closing it closes the connections bull4j opened, and the Lettuce client only if bull4j created it: a
 * client passed to {@link #using(RedisClient)} stays the caller's to shut down.
 */
public final class Bull4jConnection implements AutoCloseable {
    /**
     * How long any Redis command may take, by default, before it fails with a {@link RedisOutcomeUnknownException}
     * (whose {@link RedisException#isTimeout()} is true): 10 seconds.
     */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = ConnectionOptions.DEFAULT_COMMAND_TIMEOUT;

    private final RedisLink link;

    private Bull4jConnection(RedisLink link) {
        this.link = link;
    }

    /**
     * A connection from the {@code REDIS_URL} environment variable when set, else to {@code redis://localhost:6379}.
     *
     * @return the connection
     * @throws RedisException when Redis cannot be reached
     * @throws Bull4jException when the server is older than Redis 6.2
     */
    public static Bull4jConnection create() {
        return create(defaultUri());
    }

    /**
     * A connection from a URI, with the default command timeout.
     *
     * @param uri {@code redis://[[user]:password@]host[:port][/db]}, or {@code rediss://} for TLS
     * @return the connection
     * @throws RedisException when Redis cannot be reached
     * @throws Bull4jException when the server is older than Redis 6.2
     */
    public static Bull4jConnection create(String uri) {
        return create(uri, DEFAULT_COMMAND_TIMEOUT);
    }

    /**
     * A connection from a URI, with a command timeout.
     *
     * @param uri {@code redis://[[user]:password@]host[:port][/db]}, or {@code rediss://} for TLS
     * @param commandTimeout how long any command may take; positive
     * @return the connection
     * @throws ValidationException when the timeout is not positive
     * @throws RedisException when Redis cannot be reached
     * @throws Bull4jException when the server is older than Redis 6.2
     */
    public static Bull4jConnection create(String uri, Duration commandTimeout) {
        return create(uri, ConnectionOptions.builder().commandTimeout(commandTimeout).build());
    }

    /**
     * A connection from a URI, with options: the command timeout and the reconnect backoff.
     *
     * <pre>{@code
     * Bull4jConnection redis = Bull4jConnection.create("redis://localhost:6379",
     *         ConnectionOptions.builder().commandTimeout(Duration.ofSeconds(3)).build());
     * }</pre>
     *
     * @param uri {@code redis://[[user]:password@]host[:port][/db]}, or {@code rediss://} for TLS
     * @param options the connection's options, e.g. {@link ConnectionOptions#DEFAULTS}; not null
     * @return the connection
     * @throws ValidationException when {@code options} is null or the URI cannot be parsed: no scheme or an unknown
     *         one, no host, a port that is not a number from 1 to 65535, a database that is not a number (refused
     *         before any connection is tried)
     * @throws RedisException when Redis cannot be reached or does not answer within the command timeout
     * @throws Bull4jException when the server is older than Redis 6.2
     */
    public static Bull4jConnection create(String uri, ConnectionOptions options) {
        ValidationException.check(uri != null && !uri.isBlank(), "uri", "must not be blank");
        ValidationException.check(options != null, "options", "must not be null");
        return new Bull4jConnection(RedisLink.open(uri, options.commandTimeout(), options.reconnectDelayMin(),
                options.reconnectDelayMax()));
    }

    /**
     * A connection to a Redis Cluster, from the URIs of one or more of its nodes ({@code redis://host:port}; the
     * others are discovered). Every queue used on it needs a hash tag in its prefix or name, e.g. prefix
     * {@code "{bull}"}: a Queue or Worker without one is refused at construction with a {@link ValidationException}.
     *
     * <pre>{@code
     * Bull4jConnection redis = Bull4jConnection.createCluster("redis://10.0.0.1:7000", "redis://10.0.0.2:7000");
     * Queue emails = new Queue("emails", QueueOptions.builder().connection(redis).prefix("{bull}").build());
     * }</pre>
     *
     * @param seedUris the URIs of one or more nodes
     * @return the connection
     * @throws RedisException when no node can be reached
     */
    public static Bull4jConnection createCluster(String... seedUris) {
        ValidationException.check(seedUris != null, "seedUris", "must not be null");
        return createCluster(Arrays.asList(seedUris), DEFAULT_COMMAND_TIMEOUT);
    }

    /**
     * A connection to a Redis Cluster, as {@link #createCluster(String...)}, with a command timeout.
     *
     * @param seedUris the URIs of one or more nodes
     * @param commandTimeout how long any command may take; positive
     * @return the connection
     * @throws ValidationException when the timeout is not positive or a URI is null
     * @throws RedisException when no node can be reached
     */
    public static Bull4jConnection createCluster(List<String> seedUris, Duration commandTimeout) {
        return createCluster(seedUris, ConnectionOptions.builder().commandTimeout(commandTimeout).build());
    }

    /**
     * A connection to a Redis Cluster, as {@link #createCluster(String...)}, with options: the command timeout and
     * the reconnect backoff.
     *
     * @param seedUris the URIs of one or more nodes
     * @param options the connection's options, e.g. {@link ConnectionOptions#DEFAULTS}; not null
     * @return the connection
     * @throws ValidationException when {@code seedUris} is null, empty or holds a null, blank or unparsable URI, or
     *         {@code options} is null
     * @throws RedisException when no node can be reached
     */
    public static Bull4jConnection createCluster(List<String> seedUris, ConnectionOptions options) {
        ValidationException.check(seedUris != null, "seedUris", "must not be null");
        ValidationException.check(seedUris.stream().allMatch(Objects::nonNull), "seedUris", "must not hold null");
        ValidationException.check(options != null, "options", "must not be null");
        return new Bull4jConnection(RedisLink.openCluster(seedUris, options.commandTimeout(),
                options.reconnectDelayMin(), options.reconnectDelayMax()));
    }

    /**
     * A connection on a Lettuce client that the caller owns: {@link #close()} closes the connections bull4j opened
     * on it, never the client, which the caller shuts down. The default command timeout applies.
     *
     * @param client the client
     * @return the connection
     * @throws RedisException when Redis cannot be reached
     */
    public static Bull4jConnection using(RedisClient client) {
        ValidationException.check(client != null, "client", "must not be null");
        return new Bull4jConnection(RedisLink.using(client, DEFAULT_COMMAND_TIMEOUT));
    }

    /**
     * A connection on a Redis Cluster client that the caller owns and shuts down. Queue keys need a hash tag, e.g. a
     * prefix {@code "{bull}"}, as for {@link #createCluster(String...)}. The client's options are left as they are:
     * enable topology refresh on it (periodic and adaptive) if slots may move while it runs.
     *
     * @param client the cluster client
     * @return the connection
     * @throws RedisException when the cluster cannot be reached
     */
    public static Bull4jConnection using(RedisClusterClient client) {
        ValidationException.check(client != null, "client", "must not be null");
        return new Bull4jConnection(RedisLink.using(client, DEFAULT_COMMAND_TIMEOUT));
    }

    static String defaultUri() {
        String env = System.getenv("REDIS_URL");
        return env != null && !env.isBlank() ? env : "redis://localhost:6379";
    }

    /** {@return the server's version, as {@code INFO} reports it} */
    public String serverVersion() {
        return link.serverVersion();
    }

    /**
     * Reads the server's {@code maxmemory-policy} now, from {@code INFO memory} (one round trip), as a health check
     * does: bull4j needs {@code noeviction} (see {@link QueueOptions#checkEvictionPolicy()}). On Redis Cluster it asks
     * the node Lettuce routes {@code INFO} to.
     *
     * @return the policy, such as {@code "noeviction"}, or null when the server does not report one
     * @throws RedisException when Redis cannot be reached or does not answer within the command timeout
     */
    public String maxmemoryPolicy() {
        return link.maxmemoryPolicy();
    }

    RedisLink link() {
        return link;
    }

    /**
     * Closes the connections bull4j opened, and the Lettuce client if bull4j created it. Close the queues, workers
     * and event readers that share this connection first.
     */
    @Override
    public void close() {
        link.close();
    }
}
