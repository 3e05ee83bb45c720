package io.bull4j.support;

import io.bull4j.Bull4jConnection;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.OutputStream;
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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real 3-master Redis Cluster of local {@code redis-server} processes on loopback ports, built with
 * {@code redis-cli --cluster create}: one per JVM, started on first use and stopped by a shutdown hook. Without
 * redis-server and redis-cli on PATH the calling test is skipped (failed when {@code CI=true}).
 */
public final class RedisTestCluster {
    private static final String HOST = "127.0.0.1";
    private static final int NODES = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static RedisTestCluster shared;
    private static String unavailable;

    private final Path dir;
    private final List<Integer> ports;
    private final List<Process> processes;
    private RedisClusterClient client;
    private StatefulRedisClusterConnection<String, String> connection;
    private Bull4jConnection bull4j;

    private RedisTestCluster(Path dir, List<Integer> ports, List<Process> processes) {
        this.dir = dir;
        this.ports = ports;
        this.processes = processes;
    }

    /** The cluster of this JVM; skips the calling test when the Redis tools are missing. */
    public static synchronized RedisTestCluster get() {
        if (shared == null && unavailable == null) {
            if (RedisTestServer.onPath("redis-server").isEmpty() || RedisTestServer.onPath("redis-cli").isEmpty()) {
                unavailable = "Redis Cluster tests need redis-server and redis-cli on PATH "
                        + "(e.g. apt-get install redis-server)";
            } else {
                shared = start();
                Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "redis-test-cluster-stop"));
            }
        }
        if (shared == null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new IllegalStateException(unavailable);
            }
            Assumptions.abort(unavailable);
        }
        return shared;
    }

    /** {@code redis://127.0.0.1:P} for each master. */
    public List<String> seedUris() {
        return ports.stream().map(p -> "redis://" + HOST + ":" + p).toList();
    }

    /** A shared bull4j connection to the cluster, made with {@link Bull4jConnection#createCluster(String...)}. */
    public synchronized Bull4jConnection connection() {
        if (bull4j == null) {
            bull4j = Bull4jConnection.createCluster(seedUris().toArray(new String[0]));
        }
        return bull4j;
    }

    /** A Lettuce cluster connection for assertions: commands are routed by key, KEYS runs on every node. */
    public synchronized RedisAdvancedClusterCommands<String, String> sync() {
        if (connection == null) {
            client = RedisClusterClient.create(seedUris().stream().map(RedisURI::create).toList());
            connection = client.connect();
        }
        return connection.sync();
    }

    // ---- starting and stopping ----------------------------------------------------------------

    private static RedisTestCluster start() {
        OrphanReaper.reap("bull4j-cluster-");
        Path dir;
        try {
            dir = Files.createTempDirectory("bull4j-cluster-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Integer> ports = new ArrayList<>();
        List<Process> processes = new ArrayList<>();
        RedisTestCluster cluster = new RedisTestCluster(dir, ports, processes);
        try {
            for (int attempt = 1; ports.size() < NODES; attempt++) {
                int port = freePortWithBus(ports);
                Process p = launchNode(port, dir);
                OrphanReaper.claim(dir, p);
                if (awaitPing(p, port)) {
                    ports.add(port);
                    processes.add(p);
                } else {
                    p.destroyForcibly(); // port taken in between: try another, a few times
                    if (attempt >= NODES * 3) {
                        throw new IllegalStateException("could not start a cluster node (last port " + port
                                + ")\n" + read(dir.resolve("redis-" + port + ".log")));
                    }
                }
            }
            createCluster(ports, dir);
            awaitClusterOk(ports, processes, dir);
            return cluster;
        } catch (RuntimeException e) {
            cluster.stop();
            throw e;
        }
    }

    private static Process launchNode(int port, Path dir) {
        List<String> cmd = List.of("redis-server", "--port", String.valueOf(port), "--bind", HOST,
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
                "--cluster-node-timeout", "5000", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString());
        return run(cmd, dir.resolve("redis-" + port + ".log"));
    }

    private static void createCluster(List<Integer> ports, Path dir) {
        List<String> cmd = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        ports.forEach(p -> cmd.add(HOST + ":" + p));
        cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Path log = dir.resolve("create.log");
        Process p = run(cmd, log);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create failed\n" + read(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the cluster", e);
        }
    }

    /** Polls CLUSTER INFO on every node until each sees the whole cluster with all slots served. */
    private static void awaitClusterOk(List<Integer> ports, List<Process> processes, Path dir) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (int i = 0; i < ports.size(); i++) {
            int port = ports.get(i);
            RedisClient c = RedisClient.create(RedisURI.create(HOST, port));
            try (StatefulRedisConnection<String, String> conn = c.connect()) {
                while (true) {
                    String info = conn.sync().clusterInfo();
                    if (info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + NODES)
                            && info.contains("cluster_slots_ok:16384")) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("cluster not ready on port " + port + ":\n" + info
                                + "\n" + read(dir.resolve("create.log")));
                    }
                    if (waitForExit(processes.get(i), 50)) {
                        throw new IllegalStateException("cluster node on port " + port + " exited:\n"
                                + read(dir.resolve("redis-" + port + ".log")));
                    }
                }
            } finally {
                c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private synchronized void stop() {
        try {
            if (bull4j != null) {
                bull4j.close();
            }
            if (connection != null) {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        } catch (RuntimeException ignored) {
            // best effort at shutdown
        }
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temp dir is harmless
        }
    }

    // ---- helpers ----------------------------------------------------------------------------

    private static Process run(List<String> cmd, Path log) {
        try {
            return new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd, e);
        }
    }

    /** A free port P whose cluster bus port P + 10000 is free too. */
    private static int freePortWithBus(List<Integer> taken) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = freePort(0);
            if (port + 10000 <= 65535 && !taken.contains(port) && freePort(port + 10000) > 0) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (P, P + 10000) for a cluster node");
    }

    /** Binds {@code port} (0: any) and returns the port bound, or -1 when it is taken. */
    private static int freePort(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            if (port == 0) {
                throw new UncheckedIOException(e);
            }
            return -1;
        }
    }

    private static boolean awaitPing(Process p, int port) {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        try {
            while (System.nanoTime() < deadline) {
                if (ping(port)) {
                    return true;
                }
                if (p.waitFor(50, TimeUnit.MILLISECONDS)) {
                    return false;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** The polling pause of a bounded wait: waits on the node itself, so a node that dies ends it at once. */
    private static boolean waitForExit(Process p, long ms) {
        try {
            return p.waitFor(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }

    /** PING over a raw socket, so that a node is probed without any client state. */
    private static boolean ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 500);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buf = s.getInputStream().readNBytes(7);
            return new String(buf, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
