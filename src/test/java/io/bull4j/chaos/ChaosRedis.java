package io.bull4j.chaos;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

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
import java.util.List;

/**
 * The chaos suite's own redis-server: AOF on with the given fsync policy, no RDB, {@code noeviction}, on a free
 * loopback port with its data in the run directory, so that a restart (after {@code SHUTDOWN} or {@code kill -9})
 * comes back on the same port with the same data, as an operator's restart would.
 */
final class ChaosRedis implements AutoCloseable {
    static final String HOST = "127.0.0.1";

    private final Path dir;
    private final int port;
    private final String appendfsync;
    private final String maxmemory;
    private ChaosProcess process;
    private int incarnation;
    private RedisClient client;
    private StatefulRedisConnection<String, String> admin;

    private ChaosRedis(Path dir, int port, String appendfsync, String maxmemory) {
        this.dir = dir;
        this.port = port;
        this.appendfsync = appendfsync;
        this.maxmemory = maxmemory;
    }

    /** appendfsync: {@code everysec} or {@code always}; maxmemory: e.g. {@code 64mb}, or null for none. */
    static ChaosRedis start(Path runDir, String appendfsync, String maxmemory) {
        Path dir = runDir.resolve("redis");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChaosRedis redis = new ChaosRedis(dir, freePort(), appendfsync, maxmemory);
        redis.launch();
        return redis;
    }

    String uri() {
        return "redis://" + HOST + ":" + port;
    }

    int port() {
        return port;
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** A plain connection for the nemesis and the checkers (Lettuce reconnects it after a restart). */
    synchronized RedisCommands<String, String> admin() {
        if (admin == null) {
            client = RedisClient.create(uri());
            admin = client.connect();
        }
        return admin.sync();
    }

    void kill9() {
        process.kill9();
    }

    /** {@code SHUTDOWN}: Redis writes and syncs its AOF, then exits. */
    void shutdown() {
        raw("SHUTDOWN");
        if (!process.awaitExit(30)) {
            throw new IllegalStateException("redis-server did not exit after SHUTDOWN");
        }
    }

    void sigstop() {
        process.sigstop();
    }

    void sigcont() {
        process.sigcont();
    }

    /** Starts it again on the same port and directory; returns once it answers and has loaded its AOF. */
    void restart() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + port + " is still running");
        }
        launch();
    }

    private void launch() {
        List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port), "--bind", HOST,
                "--dir", dir.toString(), "--save", "", "--appendonly", "yes", "--appendfsync", appendfsync,
                "--maxmemory-policy", "noeviction", "--daemonize", "no"));
        if (maxmemory != null) {
            cmd.addAll(List.of("--maxmemory", maxmemory));
        }
        process = ChaosProcess.start("redis." + incarnation++, cmd, dir, dir.resolve("redis.log"));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited at start; see " + dir.resolve("redis.log"));
            }
            String info = raw("INFO persistence");
            if (info != null && info.contains("loading:0")) {
                return;
            }
            pause(50);
        }
        throw new IllegalStateException("redis-server on port " + port + " did not come up; see redis.log");
    }

    /** One command over a fresh socket, outside any client's state; the reply's text, or null when none. */
    String raw(String command) {
        return raw(port, command);
    }

    /** One command to 127.0.0.1:{@code port} over a fresh socket; the reply's text, or null when none. */
    static String raw(int port, String command) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 500);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            int n = in.read(buf);
            return n <= 0 ? null : new String(buf, 0, n, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            admin = null;
        }
        if (process != null && process.isAlive()) {
            process.kill9();
        }
    }

    private static void pause(long ms) {
        Object gate = new Object();
        synchronized (gate) {
            try {
                gate.wait(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
