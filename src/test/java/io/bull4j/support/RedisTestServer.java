package io.bull4j.support;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import redis.embedded.core.ExecutableProvider;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Redis for tests. {@link #get()} is the one shared server of this JVM; {@link #startDedicated()}
 * gives a private one that a test may stop, kill or restart. Never defaults to 127.0.0.1:6379 (a Redis
 * that may be shared with other work): only {@code BULL4J_TEST_REDIS_URL} can point tests there. The generic
 * {@code REDIS_URL} is ignored on purpose: a developer may have it exported for an application, and the suite
 * must not write into that Redis.
 */
public final class RedisTestServer implements AutoCloseable {
    /** The one variable that points the tests at an external Redis. */
    public static final String URL_VARIABLE = "BULL4J_TEST_REDIS_URL";

    private static final String HOST = "127.0.0.1";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    private static RedisTestServer shared;

    private final String uri;
    private final String host;
    private final int port;
    private final Path binary;   // null when BULL4J_TEST_REDIS_URL points at an external server
    private final Path dir;      // working dir + log of the process we started
    private Process process;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    private RedisTestServer(String uri, String host, int port, Path binary, Path dir) {
        this.uri = uri;
        this.host = host;
        this.port = port;
        this.binary = binary;
        this.dir = dir;
    }

    /**
     * The process-wide server: BULL4J_TEST_REDIS_URL if set, else a redis-server from PATH started once per JVM, else a
     * Redis container when Docker runs, else the embedded binary.
     */
    public static synchronized RedisTestServer get() {
        if (shared == null) {
            String url = System.getenv(URL_VARIABLE);
            RedisTestServer server;
            if (url != null && !url.isBlank()) {
                RedisURI parsed = RedisURI.create(url);
                server = new RedisTestServer(url, parsed.getHost(), parsed.getPort(), null, null);
            } else if (!forceEmbedded() && onPath("redis-server").isEmpty() && DockerRedis.available()) {
                String dockerUrl = DockerRedis.start();
                RedisURI parsed = RedisURI.create(dockerUrl);
                server = new RedisTestServer(dockerUrl, parsed.getHost(), parsed.getPort(), null, null);
            } else {
                server = startNew();
            }
            // why: one hook for the shared server; dedicated ones are closed by their tests
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "redis-test-server-stop"));
            server.applyAcl();
            shared = server;
        }
        return shared;
    }

    /** Always starts a NEW redis-server on a free port; the caller stops it (close/stop/kill). */
    public static RedisTestServer startDedicated() {
        RedisTestServer server = startNew();
        server.applyAcl();
        return server;
    }

    /** A queue name unique to this run, so tests never see each other's keys; never contains ':'. */
    public static String uniqueQueueName(String hint) {
        String safe = hint == null || hint.isBlank() ? "q" : hint.replace(':', '-');
        return safe + "-" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    /** The admin URI (default user): for assertions, damage, Node BullMQ and admin commands. */
    public String uri() {
        return uri;
    }

    /**
     * The URI bull4j's own connections use: {@link #uri()}, or with the least-privilege user's credentials when the
     * suite runs under the ACL ({@link AclUser#enabled()}).
     */
    public String bull4jUri() {
        return AclUser.enabled() ? AclUser.withCredentials(uri) : uri;
    }

    /** Creates the restricted user when the suite runs under the ACL; servers lose it when they restart. */
    private void applyAcl() {
        if (AclUser.enabled()) {
            AclUser.create(sync());
        }
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** One shared Lettuce connection for assertions, created on first use, closed with the server. */
    public synchronized RedisCommands<String, String> sync() {
        if (connection == null) {
            client = RedisClient.create(uri);
            connection = client.connect();
        }
        return connection.sync();
    }

    /** True if the server answers PING right now (a raw socket probe, no client state involved). */
    public boolean isRunning() {
        return ping(host, port);
    }

    /** Graceful stop (SIGTERM, then SIGKILL if it lingers). Only for servers this class started. */
    public synchronized void stop() {
        requireOwned();
        closeClient();
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Abrupt death (SIGKILL), as in a crash. Only for servers this class started. */
    public synchronized void kill() {
        requireOwned();
        if (process != null && process.isAlive()) {
            try {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Starts the server again on the SAME port (empty dataset: persistence is off). */
    public synchronized void restart() {
        requireOwned();
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + port + " is still running");
        }
        process = launch(binary, port, dir);
        OrphanReaper.claim(dir, process);
        if (!awaitPing(process, port)) {
            throw new IllegalStateException("redis-server did not come back on port " + port + "\n" + log(dir));
        }
        applyAcl();
    }

    @Override
    public synchronized void close() {
        closeClient();
        if (binary != null) {
            stop();
            deleteQuietly(dir);
        }
    }

    @Override
    public String toString() {
        return "RedisTestServer[" + uri + "]";
    }

    // ---- starting ---------------------------------------------------------------------------

    private static RedisTestServer startNew() {
        reapOnce();
        Path binary = findBinary();
        Path dir;
        try {
            dir = Files.createTempDirectory("bull4j-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // why retry: the free port we picked can be taken by someone else before redis binds it
        for (int attempt = 1; attempt <= 3; attempt++) {
            int port = freePort();
            Process p = launch(binary, port, dir);
            OrphanReaper.claim(dir, p);
            if (awaitPing(p, port)) {
                RedisTestServer server = new RedisTestServer("redis://" + HOST + ":" + port, HOST, port, binary, dir);
                server.process = p;
                return server;
            }
            p.destroyForcibly();
            if (attempt == 3) {
                throw new IllegalStateException("could not start " + binary + " (last port " + port + ")\n" + log(dir));
            }
        }
        throw new AssertionError("unreachable");
    }

    private static boolean reaped;

    /** Once per JVM: stops the servers that killed JVMs of earlier runs left behind. */
    private static synchronized void reapOnce() {
        if (!reaped) {
            reaped = true;
            OrphanReaper.reap("bull4j-redis-");
            OrphanReaper.reap("bull4j-cluster-");
        }
    }

    /**
     * redis-server from PATH, else the binary shipped inside the embedded-redis test jar (Redis 6.2).
     * {@code BULL4J_TEST_REDIS=embedded} forces the embedded one, to run the suite on the oldest supported Redis.
     */
    static Path findBinary() {
        Optional<Path> onPath = forceEmbedded() ? Optional.empty() : onPath("redis-server");
        if (onPath.isPresent()) {
            return onPath.get();
        }
        try {
            File embedded = ExecutableProvider.newJarResourceProvider().get();
            embedded.setExecutable(true);
            return embedded.toPath();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("No Redis for tests. Either set " + URL_VARIABLE + "=redis://host:port, "
                    + "or install redis-server on PATH (e.g. apt-get install redis-server), or run on an OS/arch "
                    + "supported by com.github.codemonstur:embedded-redis. Cause: " + e, e);
        }
    }

    private static boolean forceEmbedded() {
        return "embedded".equalsIgnoreCase(System.getenv("BULL4J_TEST_REDIS"));
    }

    /**
     * Skips the calling test when one of {@code tools} is not on PATH, except in CI (CI=true), where that is a
     * failure, as for Node and the cluster: a test family must never silently stop running there.
     */
    public static void assumeOnPath(String why, String... tools) {
        for (String tool : tools) {
            if (onPath(tool).isEmpty()) {
                String msg = why + " need " + String.join(" and ", tools) + " on PATH (" + tool + " is missing)";
                if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                    org.junit.jupiter.api.Assertions.fail(msg + "; CI=true, so this is a failure, not a skip");
                }
                org.junit.jupiter.api.Assumptions.abort(msg);
            }
        }
    }

    static Optional<Path> onPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String d : path.split(File.pathSeparator)) {
            if (d.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(d, exe);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Process launch(Path binary, int port, Path dir) {
        List<String> cmd = new ArrayList<>(List.of(binary.toString(),
                "--port", String.valueOf(port), "--bind", HOST,
                "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString()));
        try {
            return new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    // why a file: nobody drains a pipe, and the log explains a failed start
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd, e);
        }
    }

    /** Polls PING until it answers; waits on the process between tries so an early exit ends the wait. */
    static boolean awaitPing(Process p, int port) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (ping(HOST, port)) {
                    return true;
                }
                if (p.waitFor(50, TimeUnit.MILLISECONDS)) {
                    return false; // exited: port in use or bad arguments, see the log
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    static boolean ping(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 500);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[7];
            int n = in.readNBytes(buf, 0, buf.length);
            return new String(buf, 0, n, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- housekeeping -----------------------------------------------------------------------

    private void requireOwned() {
        if (binary == null) {
            throw new IllegalStateException("this server comes from " + URL_VARIABLE + "; tests cannot stop it");
        }
    }

    private synchronized void closeClient() {
        if (client != null) {
            try {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            } catch (RuntimeException ignored) {
                // best effort at shutdown
            }
            client = null;
            connection = null;
        }
    }

    static String log(Path dir) {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException e) {
            return "(no redis log: " + e + ")";
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temp dir is harmless
        }
    }
}
