package io.bull4j.chaos;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * The chaos suite's Sentinel setup: a primary and one replica, no persistence (a killed node comes back empty and
 * resyncs as a replica), and three Sentinels with a quorum of 2 that mark a primary down after 1 s without
 * answers. The workers and the producer reach the primary through the Sentinels ({@code redis-sentinel://}).
 */
final class ChaosSentinel implements AutoCloseable {
    static final String HOST = "127.0.0.1";
    static final String MASTER = "chaos";
    static final int DOWN_AFTER_MS = 1_000;
    private static final int NODES = 2;
    private static final int SENTINELS = 3;

    private final Path dir;
    private final List<Integer> ports = new ArrayList<>();
    private final List<ChaosProcess> nodes = new ArrayList<>();
    private final List<Integer> incarnations = new ArrayList<>();
    private final List<Integer> sentinelPorts = new ArrayList<>();
    private final List<ChaosProcess> sentinels = new ArrayList<>();
    private RedisClient adminClient;
    private StatefulRedisConnection<String, String> admin;

    private ChaosSentinel(Path dir) {
        this.dir = dir;
    }

    static ChaosSentinel start(Path runDir) {
        Path dir = runDir.resolve("redis");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChaosSentinel s = new ChaosSentinel(dir);
        try {
            for (int i = 0; i < NODES; i++) {
                s.ports.add(freePort());
                s.incarnations.add(0);
                s.nodes.add(null);
                s.launch(i, i == 0 ? -1 : 0);
            }
            s.awaitReplicating(1, Duration.ofSeconds(30));
            for (int i = 0; i < SENTINELS; i++) {
                s.launchSentinel(freePort());
            }
            s.awaitPromotableReplica(Duration.ofSeconds(30));
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** The URI the workers and the producer get: every Sentinel, and the primary's name. */
    String uri() {
        return "redis-sentinel://" + sentinelPorts.stream().map(p -> HOST + ":" + p).collect(Collectors.joining(","))
                + "#" + MASTER;
    }

    int size() {
        return NODES;
    }

    int port(int node) {
        return ports.get(node);
    }

    boolean isAlive(int node) {
        return nodes.get(node) != null && nodes.get(node).isAlive();
    }

    /** The node (index) the first Sentinel that answers names as the primary, or -1. */
    int primary() {
        for (int port : sentinelPorts) {
            String reply = ChaosRedis.raw(port, "SENTINEL get-master-addr-by-name " + MASTER);
            if (reply != null && reply.startsWith("*2")) {
                String[] lines = reply.split("\r\n");
                return ports.indexOf(Integer.parseInt(lines[lines.length - 1].trim()));
            }
        }
        return -1;
    }

    /** Whether {@code node} answers as a primary ({@code role:master}). */
    boolean isPrimary(int node) {
        String info = ChaosRedis.raw(port(node), "INFO replication");
        return info != null && info.contains("role:master");
    }

    /** Whether {@code node} is a replica with its link to the primary up. */
    boolean isReplicating(int node) {
        String info = ChaosRedis.raw(port(node), "INFO replication");
        return info != null && info.contains("role:slave") && info.contains("master_link_status:up");
    }

    /** {@code SENTINEL FAILOVER}, sent to the Sentinels in turn until one takes it; its reply. */
    String failover() {
        String reply = null;
        for (int port : sentinelPorts) {
            reply = ChaosRedis.raw(port, "SENTINEL FAILOVER " + MASTER);
            if ("+OK".equals(reply)) {
                return reply;
            }
        }
        return reply;
    }

    void kill9(int node) {
        nodes.get(node).kill9();
    }

    /** Starts a killed node again, empty, as a replica of {@code primary}. */
    void restartAsReplicaOf(int node, int primary) {
        if (isAlive(node)) {
            throw new IllegalStateException("node " + port(node) + " is still running");
        }
        launch(node, primary);
    }

    void awaitReplicating(int node, Duration limit) {
        await(() -> isReplicating(node), limit, "node " + port(node) + " replicating");
    }

    /** Until a Sentinel knows a replica it could promote: a failover asked for earlier answers NOGOODSLAVE. */
    void awaitPromotableReplica(Duration limit) {
        await(() -> {
            String reply = ChaosRedis.raw(sentinelPorts.get(0), "SENTINEL REPLICAS " + MASTER);
            return reply != null && reply.contains("master-link-status") && reply.contains("\r\nok\r\n")
                    && !reply.contains("s_down") && !reply.contains("disconnected");
        }, limit, "a promotable replica");
    }

    /**
     * A plain connection to the current primary, for the drain and the final state. Made once, after the faults
     * are healed.
     */
    synchronized RedisCommands<String, String> admin() {
        if (admin == null) {
            int primary = primary();
            if (primary < 0) {
                throw new IllegalStateException("no Sentinel names a primary");
            }
            adminClient = RedisClient.create(RedisURI.create(HOST, port(primary)));
            admin = adminClient.connect();
        }
        return admin.sync();
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close();
            adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            admin = null;
        }
        for (ChaosProcess p : sentinels) {
            if (p.isAlive()) {
                p.kill9();
            }
        }
        for (ChaosProcess p : nodes) {
            if (p != null && p.isAlive()) {
                p.kill9();
            }
        }
    }

    private static void await(java.util.function.BooleanSupplier condition, Duration limit, String what) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + ": not within " + limit);
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    private void launch(int node, int replicaOf) {
        int port = port(node);
        int incarnation = incarnations.get(node);
        incarnations.set(node, incarnation + 1);
        List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port), "--bind", HOST,
                "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction", "--daemonize", "no",
                "--dir", dir.toString()));
        if (replicaOf >= 0) {
            cmd.addAll(List.of("--replicaof", HOST, String.valueOf(port(replicaOf))));
        }
        ChaosProcess p = ChaosProcess.start("redis-" + port + "." + incarnation, cmd, dir,
                dir.resolve("redis-" + port + ".log"));
        nodes.set(node, p);
        await(() -> p.isAlive() && "+PONG".equals(ChaosRedis.raw(port, "PING")), Duration.ofSeconds(30),
                "node " + port + " answering");
    }

    private void launchSentinel(int port) {
        Path conf = dir.resolve("sentinel-" + port + ".conf");
        try {
            Files.writeString(conf, String.join("\n",
                    "port " + port,
                    "bind " + HOST,
                    "dir " + dir,
                    "sentinel monitor " + MASTER + " " + HOST + " " + port(0) + " 2",
                    "sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MS,
                    "sentinel failover-timeout " + MASTER + " 10000", ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChaosProcess p = ChaosProcess.start("sentinel-" + port, List.of("redis-server", conf.toString(), "--sentinel"),
                dir, dir.resolve("sentinel-" + port + ".log"));
        sentinels.add(p);
        sentinelPorts.add(port);
        await(() -> p.isAlive() && "+PONG".equals(ChaosRedis.raw(port, "PING")), Duration.ofSeconds(30),
                "Sentinel " + port + " answering");
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
