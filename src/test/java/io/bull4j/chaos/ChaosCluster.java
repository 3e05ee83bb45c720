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
 * The chaos suite's Redis Cluster: 3 primaries with one replica each ({@code redis-cli --cluster create
 * --cluster-replicas 1}), a short {@code cluster-node-timeout} so that a dead primary's replica takes over within
 * seconds, no persistence (a node killed and restarted comes back empty and resyncs as a replica). The nemesis
 * acts on the primary and the replica of the queue's hash slot.
 */
final class ChaosCluster implements AutoCloseable {
    static final String HOST = "127.0.0.1";
    static final int NODE_TIMEOUT_MS = 1_500;
    private static final int NODES = 6;

    private final Path dir;
    private final List<Integer> ports = new ArrayList<>();
    private final List<ChaosProcess> nodes = new ArrayList<>();
    private final List<Integer> incarnations = new ArrayList<>();
    private RedisClient adminClient;
    private StatefulRedisConnection<String, String> admin;

    private ChaosCluster(Path dir) {
        this.dir = dir;
    }

    static ChaosCluster start(Path runDir) {
        Path dir = runDir.resolve("redis");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChaosCluster c = new ChaosCluster(dir);
        try {
            for (int i = 0; i < NODES; i++) {
                c.ports.add(freePortWithBus(c.ports));
                c.incarnations.add(0);
                c.nodes.add(null);
                c.launch(i);
            }
            List<String> cmd = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            c.ports.forEach(p -> cmd.add(HOST + ":" + p));
            cmd.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            ChaosProcess create = ChaosProcess.start("cluster-create", cmd, dir, dir.resolve("create.log"));
            if (!create.awaitExit(60)) {
                throw new IllegalStateException("redis-cli --cluster create did not finish; see create.log");
            }
            c.awaitHealthy(Duration.ofSeconds(60));
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Every node's URI, comma-separated: what the workers and the producer get as seeds. */
    String uri() {
        return ports.stream().map(p -> "redis://" + HOST + ":" + p).collect(Collectors.joining(","));
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

    /** The hash slot of {@code key}. */
    int slotOf(String key) {
        String reply = rawOnAnyNode("CLUSTER KEYSLOT " + key);
        if (reply == null || !reply.startsWith(":")) {
            throw new IllegalStateException("CLUSTER KEYSLOT answered " + reply);
        }
        return Integer.parseInt(reply.substring(1));
    }

    /** The node (index) that is the healthy primary serving {@code slot}, as a live node sees it, or -1. */
    int primaryOf(int slot) {
        for (String[] line : clusterNodes()) {
            if (line[2].contains("master") && !line[2].contains("fail") && servesSlot(line, slot)) {
                return indexOf(line[1]);
            }
        }
        return -1;
    }

    /** A live replica (index) of the primary {@code primary}, or -1. */
    int replicaOf(int primary) {
        String primaryId = null;
        List<String[]> lines = clusterNodes();
        for (String[] line : lines) {
            if (indexOf(line[1]) == primary) {
                primaryId = line[0];
            }
        }
        for (String[] line : lines) {
            if (line[2].contains("slave") && !line[2].contains("fail") && line[3].equals(primaryId)
                    && isAlive(indexOf(line[1]))) {
                return indexOf(line[1]);
            }
        }
        return -1;
    }

    /** Whether {@code node} sees itself as the primary of {@code slot}. */
    boolean isPrimaryOf(int node, int slot) {
        String reply = raw(node, "CLUSTER NODES");
        if (reply == null) {
            return false;
        }
        for (String l : reply.split("\n")) {
            String[] line = l.trim().split(" ");
            if (line.length > 2 && line[2].contains("myself") && line[2].contains("master") && servesSlot(line, slot)) {
                return true;
            }
        }
        return false;
    }

    void kill9(int node) {
        nodes.get(node).kill9();
    }

    /** Starts a killed node again on its port with its nodes.conf: it rejoins (as a replica once told so). */
    void restart(int node) {
        if (isAlive(node)) {
            throw new IllegalStateException("cluster node " + port(node) + " is still running");
        }
        launch(node);
    }

    /** Polls until every node is up and sees all slots served ({@code cluster_state:ok}), or fails. */
    void awaitHealthy(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            boolean ok = true;
            for (int i = 0; i < NODES && ok; i++) {
                String info = raw(i, "CLUSTER INFO");
                ok = info != null && info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384")
                        && info.contains("cluster_known_nodes:" + NODES);
            }
            if (ok) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster not healthy within " + limit + ": "
                        + rawOnAnyNode("CLUSTER NODES"));
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
    }

    /**
     * A plain connection to the current primary of {@code key}'s slot, for the drain and the final state (every
     * key of a queue with a hash tag is in that slot). Made once, after the faults are healed.
     */
    synchronized RedisCommands<String, String> adminFor(String key) {
        if (admin == null) {
            int primary = primaryOf(slotOf(key));
            if (primary < 0) {
                throw new IllegalStateException("no primary for " + key + ": " + rawOnAnyNode("CLUSTER NODES"));
            }
            adminClient = RedisClient.create(RedisURI.create(HOST, port(primary)));
            admin = adminClient.connect();
        }
        return admin.sync();
    }

    /** One command to one node over a fresh socket; the reply's text, or null when none. */
    String raw(int node, String command) {
        return ChaosRedis.raw(port(node), command);
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close();
            adminClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            admin = null;
        }
        for (ChaosProcess p : nodes) {
            if (p != null && p.isAlive()) {
                p.kill9();
            }
        }
    }

    private String rawOnAnyNode(String command) {
        for (int i = 0; i < NODES; i++) {
            if (isAlive(i)) {
                String reply = raw(i, command);
                if (reply != null && !reply.startsWith("-")) {
                    return reply;
                }
            }
        }
        return null;
    }

    /** CLUSTER NODES as seen by a live node, one split line per node. */
    private List<String[]> clusterNodes() {
        String reply = rawOnAnyNode("CLUSTER NODES");
        List<String[]> out = new ArrayList<>();
        if (reply != null) {
            for (String l : reply.split("\n")) {
                String[] line = l.trim().split(" ");
                if (line.length >= 8) {
                    out.add(line);
                }
            }
        }
        return out;
    }

    private static boolean servesSlot(String[] line, int slot) {
        for (int i = 8; i < line.length; i++) {
            if (line[i].startsWith("[")) {
                continue; // a slot being migrated
            }
            String[] range = line[i].split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            if (slot >= from && slot <= to) {
                return true;
            }
        }
        return false;
    }

    /** The node index of an {@code ip:port@bus} address, or -1. */
    private int indexOf(String address) {
        String hostPort = address.split("@")[0];
        int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
        return ports.indexOf(port);
    }

    private void launch(int node) {
        int port = port(node);
        int incarnation = incarnations.get(node);
        incarnations.set(node, incarnation + 1);
        List<String> cmd = List.of("redis-server", "--port", String.valueOf(port), "--bind", HOST,
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
                "--cluster-node-timeout", String.valueOf(NODE_TIMEOUT_MS), "--save", "", "--appendonly", "no",
                "--maxmemory-policy", "noeviction", "--daemonize", "no", "--dir", dir.toString());
        ChaosProcess p = ChaosProcess.start("redis-" + port + "." + incarnation, cmd, dir,
                dir.resolve("redis-" + port + ".log"));
        nodes.set(node, p);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!"+PONG".equals(raw(node, "PING"))) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster node " + port + " did not come up; see its log");
            }
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    /** A free port P whose cluster bus port P + 10000 is free too. */
    private static int freePortWithBus(List<Integer> taken) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = bind(0);
            if (port + 10000 <= 65535 && !taken.contains(port) && bind(port + 10000) > 0) {
                return port;
            }
        }
        throw new IllegalStateException("no free port pair (P, P + 10000) for a cluster node");
    }

    private static int bind(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            if (port == 0) {
                throw new UncheckedIOException(e);
            }
            return -1;
        }
    }
}
