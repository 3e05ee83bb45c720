package io.bull4j.support;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Redis Sentinel (quorum 1) watching a test primary, on a free port, for the failover tests: the same binary as
 * {@link RedisTestServer}, started with {@code --sentinel} on a config file of its own (Sentinel rewrites it). A
 * primary is marked down after 1 s without answers.
 */
public final class RedisTestSentinel implements AutoCloseable {
    /** The name Sentinel knows the primary by: the fragment of a {@code redis-sentinel://} URI. */
    public static final String MASTER = "bull4jmaster";
    private static final String HOST = "127.0.0.1";

    private final Process process;
    private final int port;
    private final Path dir;
    private final RedisClient client;
    private final StatefulRedisSentinelConnection<String, String> connection;

    private RedisTestSentinel(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.client = RedisClient.create(RedisURI.create(HOST, port));
        this.connection = client.connectSentinel();
    }

    /** Starts a Sentinel watching {@code primary}; the caller closes it. */
    public static RedisTestSentinel start(RedisTestServer primary) {
        Path dir;
        try {
            dir = Files.createTempDirectory("bull4j-redis-sentinel-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int attempt = 1; attempt <= 3; attempt++) {
            int port = RedisTestServer.freePort();
            Path conf = dir.resolve("sentinel-" + port + ".conf");
            try {
                Files.writeString(conf, String.join("\n",
                        "port " + port,
                        "bind " + HOST,
                        "dir " + dir,
                        "sentinel monitor " + MASTER + " " + primary.host() + " " + primary.port() + " 1",
                        "sentinel down-after-milliseconds " + MASTER + " 1000",
                        "sentinel failover-timeout " + MASTER + " 10000",
                        "sentinel parallel-syncs " + MASTER + " 1", ""));
                Process p = new ProcessBuilder(RedisTestServer.findBinary().toString(), conf.toString(), "--sentinel")
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                        .start();
                OrphanReaper.claim(dir, p);
                if (RedisTestServer.awaitPing(p, port)) {
                    return new RedisTestSentinel(p, port, dir);
                }
                p.destroyForcibly();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("could not start a Sentinel\n" + RedisTestServer.log(dir));
    }

    /** A URI through this Sentinel, as bull4j takes it; {@code credentials} ("user:password@") may be empty. */
    public String uri(String credentials) {
        return "redis-sentinel://" + credentials + HOST + ":" + port + "#" + MASTER;
    }

    public RedisSentinelCommands<String, String> sync() {
        return connection.sync();
    }

    /** The port of the server Sentinel names as the primary now. */
    public int primaryPort() {
        SocketAddress a = sync().getMasterAddrByName(MASTER);
        return ((java.net.InetSocketAddress) a).getPort();
    }

    /** Whether Sentinel knows a replica of the primary that it could promote (linked, not down). */
    public boolean hasPromotableReplica() {
        List<Map<String, String>> replicas = sync().replicas(MASTER);
        return replicas.stream().anyMatch(r -> "ok".equals(r.get("master-link-status"))
                && !r.getOrDefault("flags", "").contains("down")
                && !r.getOrDefault("flags", "").contains("disconnected"));
    }

    public String log() {
        return RedisTestServer.log(dir);
    }

    @Override
    public void close() {
        try {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } catch (RuntimeException ignored) {
            // best effort at the end of a test
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
