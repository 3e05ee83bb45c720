package io.bull4j.chaos;

import java.time.Duration;

/** The nemeses of the chaos suite, one per fault kind. Each runs until its fault time is up. */
final class Scenarios {
    private Scenarios() {
    }

    /** No fault from outside: the workload is the fault (CPU-bound processors). */
    static Nemesis none() {
        return f -> f.hold(f.timeLeftDuration());
    }

    /** kill -9 of a random running worker every {@code every}; its slot is restarted 1 s later. */
    static Nemesis workerKill9(Duration every) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(every.minusSeconds(1));
                int slot = f.fleet.randomReadySlot(f.random);
                if (slot < 0) {
                    continue; // every worker is still starting
                }
                f.fleet.kill9(slot);
                f.hold(Duration.ofSeconds(1));
                f.fleet.spawn(slot);
            }
        };
    }

    /** SIGSTOP of a random worker for {@code pause} (longer than its lock), then SIGCONT; one at a time. */
    static Nemesis workerPause(Duration pause, Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                int slot = f.fleet.randomReadySlot(f.random);
                if (slot < 0) {
                    continue; // every worker is still starting
                }
                f.fleet.sigstop(slot);
                f.hold(pause);
                f.fleet.sigcont(slot);
            }
        };
    }

    /**
     * Each worker in turn: SIGTERM, wait for its graceful close, start its successor and wait until it takes jobs
     * before the next one; a pause between.
     */
    static Nemesis rollingRestart(Duration gap) {
        return f -> {
            int slot = 0;
            while (f.timeLeft()) {
                f.hold(gap);
                f.fleet.terminate(slot, 30);
                f.fleet.spawn(slot);
                f.awaitReady(slot, Duration.ofSeconds(60));
                slot = (slot + 1) % f.fleet.size();
            }
        };
    }

    /** Redis goes down ({@code SHUTDOWN} or {@code kill -9}) for {@code down}, then restarts on the same AOF. */
    static Nemesis redisRestart(boolean kill9, Duration down, Duration gap) {
        String kind = kill9 ? "redis kill -9" : "redis SHUTDOWN";
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                f.redisFault(kind, () -> {
                    if (kill9) {
                        f.redis.kill9();
                    } else {
                        f.redis.shutdown();
                    }
                    f.hold(down);
                    f.redis.restart();
                });
            }
        };
    }

    /** {@code SCRIPT FLUSH} every {@code every}: every worker's next script call meets NOSCRIPT. */
    static Nemesis scriptFlush(Duration every) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(every);
                f.redisFault("SCRIPT FLUSH", () -> require(f.redis.raw("SCRIPT FLUSH"), "+OK"));
            }
        };
    }

    /**
     * A {@code CLIENT KILL} every {@code every}, cycling through the kinds of connection: the blocked ones (a
     * worker's {@code BZPOPMIN} connection), the command ones (workers' and the producer's scripts), every normal
     * connection at once, and the pub/sub ones.
     */
    static Nemesis clientKill(Duration every) {
        String[] targets = {"blocking", "commands", "normal", "pubsub"};
        return f -> {
            int i = 0;
            while (f.timeLeft()) {
                f.hold(every);
                String target = targets[i++ % targets.length];
                f.redisFault("CLIENT KILL " + target,
                        () -> f.log.append("CLIENTS_KILLED", "target", target, "count", killClients(f.redis, target)));
            }
        };
    }

    /** Returns how many connections were killed. */
    private static int killClients(ChaosRedis redis, String target) {
        if (target.equals("normal") || target.equals("pubsub")) {
            String reply = redis.raw("CLIENT KILL TYPE " + target);
            require(reply, ":");
            return Integer.parseInt(reply.substring(1));
        }
        int killed = 0;
        for (String client : redis.admin().clientList().split("\n")) {
            String cmd = field(client, "cmd");
            boolean blocking = "bzpopmin".equals(cmd);
            boolean ordinary = blocking || "N".equals(field(client, "flags"));
            if (cmd == null || cmd.startsWith("client") || !ordinary) {
                continue; // this admin connection, or a pub/sub or replica one
            }
            if (blocking == target.equals("blocking")
                    && ":1".equals(redis.raw("CLIENT KILL ID " + field(client, "id")))) {
                killed++;
            }
        }
        return killed;
    }

    /** One {@code name=value} field of a CLIENT LIST line. */
    private static String field(String clientLine, String name) {
        for (String kv : clientLine.trim().split(" ")) {
            if (kv.startsWith(name + "=")) {
                return kv.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** {@code CLIENT PAUSE <ms> WRITE}: writes wait on the server side for {@code pause}. */
    static Nemesis clientPause(Duration pause, Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                f.redisFault("CLIENT PAUSE WRITE", () -> {
                    require(f.redis.raw("CLIENT PAUSE " + pause.toMillis() + " WRITE"), "+OK");
                    f.hold(pause);
                });
            }
        };
    }

    /**
     * Memory runs out under {@code noeviction}: every {@code gap}, {@code maxmemory} is set just above the memory in
     * use, so that within seconds every write (adds, and the workers' fetches, finishes and renewals) is refused
     * with {@code OOM command not allowed}; after {@code squeeze} the limit is lifted (memory freed), and the queue
     * heals.
     */
    static Nemesis maxmemoryNoeviction(long headroomBytes, Duration squeeze, Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                f.redisFault("maxmemory noeviction", () -> {
                    long limit = usedMemory(f.redis) + headroomBytes;
                    try {
                        require(f.redis.raw("CONFIG SET maxmemory " + limit), "+OK");
                        f.log.append("MAXMEMORY", "bytes", limit);
                        // the adds fill the headroom; memory in use also moves by itself (buffers), so when it
                        // has not crossed the limit within 3 s the limit goes just below it
                        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                        long used;
                        while ((used = usedMemory(f.redis)) <= limit && System.nanoTime() < until) {
                            f.hold(Duration.ofMillis(100));
                        }
                        if (used <= limit) {
                            limit = used - headroomBytes;
                            require(f.redis.raw("CONFIG SET maxmemory " + limit), "+OK");
                            f.log.append("MAXMEMORY", "bytes", limit);
                        }
                        f.log.append("OOM", "used", usedMemory(f.redis), "limit", limit);
                        f.hold(squeeze);
                    } finally {
                        require(f.redis.raw("CONFIG SET maxmemory 0"), "+OK");
                        f.log.append("MAXMEMORY", "bytes", 0);
                    }
                });
            }
        };
    }

    /** {@code used_memory} from INFO memory. */
    private static long usedMemory(ChaosRedis redis) {
        String info = redis.raw("INFO memory");
        require(info, "$");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("no used_memory in INFO memory: " + info);
    }

    /**
     * {@code CLUSTER FAILOVER} (manual, graceful) on the replica of the queue's slot every {@code gap}: the primary
     * stops taking writes, the replica catches up and takes over; the old primary becomes its replica. Nothing
     * acknowledged may be lost.
     */
    static Nemesis clusterFailover(Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                int primary = f.cluster.primaryOf(f.slot);
                int replica = primary < 0 ? -1 : f.cluster.replicaOf(primary);
                if (replica < 0) {
                    f.log.append("NO_REPLICA", "primary", primary);
                    continue;
                }
                f.redisFault("CLUSTER FAILOVER", () -> {
                    f.log.append("FAILOVER", "from", f.cluster.port(primary), "to", f.cluster.port(replica));
                    require(f.cluster.raw(replica, "CLUSTER FAILOVER"), "+OK");
                    awaitPrimary(f, replica, Duration.ofSeconds(30));
                });
            }
        };
    }

    /**
     * kill -9 of the primary of the queue's slot every {@code gap}: its replica is promoted once the cluster marks
     * it failed ({@code cluster-node-timeout}); the killed node is then restarted and rejoins as a replica.
     * Replication is asynchronous: a write the primary acknowledged just before its death may be lost with it.
     */
    static Nemesis clusterPrimaryKill9(Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                int primary = f.cluster.primaryOf(f.slot);
                int replica = primary < 0 ? -1 : f.cluster.replicaOf(primary);
                if (replica < 0) {
                    f.log.append("NO_REPLICA", "primary", primary);
                    continue;
                }
                f.redisFault("cluster primary kill -9", () -> {
                    f.log.append("PRIMARY_KILL9", "port", f.cluster.port(primary), "replica",
                            f.cluster.port(replica));
                    f.cluster.kill9(primary);
                    awaitPrimary(f, replica, Duration.ofSeconds(30));
                    f.cluster.restart(primary);
                    f.cluster.awaitHealthy(Duration.ofSeconds(30));
                });
            }
        };
    }

    /**
     * {@code SENTINEL FAILOVER} every {@code gap}: Sentinel promotes the replica at once, without waiting for it to
     * catch up, and turns the old primary into its replica only some seconds later (Sentinel waits before it
     * corrects a role), closing its clients then. Writes the old primary took in between are lost with it
     * (replication is asynchronous): counted apart, as in a crash, from the failover's end.
     */
    static Nemesis sentinelFailover(Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                int from = f.sentinel.primary();
                int to = 1 - from;
                f.redisFault(SENTINEL_FAILOVER, () -> {
                    f.sentinel.awaitPromotableReplica(Duration.ofSeconds(30));
                    f.log.append("FAILOVER", "from", f.sentinel.port(from), "to", f.sentinel.port(to));
                    require(f.sentinel.failover(), "+OK");
                    awaitSentinelPrimary(f, to, Duration.ofSeconds(30));
                    f.sentinel.awaitReplicating(from, Duration.ofSeconds(60));
                    f.log.append("DEMOTED", "port", f.sentinel.port(from));
                });
            }
        };
    }

    /** The fault kind of {@link #sentinelFailover}, which the checker treats as a crash at its end. */
    static final String SENTINEL_FAILOVER = "SENTINEL FAILOVER";

    /**
     * kill -9 of the primary behind Sentinel every {@code gap}: the Sentinels promote the replica once they agree
     * it is down (1 s without answers, quorum 2); the killed node then comes back, empty, as its replica.
     */
    static Nemesis sentinelPrimaryKill9(Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                int from = f.sentinel.primary();
                int to = 1 - from;
                f.redisFault("Sentinel primary kill -9", () -> {
                    f.sentinel.awaitPromotableReplica(Duration.ofSeconds(30));
                    f.log.append("PRIMARY_KILL9", "port", f.sentinel.port(from), "replica", f.sentinel.port(to));
                    f.sentinel.kill9(from);
                    awaitSentinelPrimary(f, to, Duration.ofSeconds(30));
                    f.sentinel.restartAsReplicaOf(from, to);
                    f.sentinel.awaitReplicating(from, Duration.ofSeconds(60));
                });
            }
        };
    }

    /** Polls until Sentinel names {@code node} as the primary and it answers as one; fails the run otherwise. */
    private static void awaitSentinelPrimary(ChaosRun.Faults f, int node, Duration limit) {
        long start = System.nanoTime();
        while (f.sentinel.primary() != node || !f.sentinel.isPrimary(node)) {
            if (System.nanoTime() - start > limit.toNanos()) {
                throw new IllegalStateException("node " + f.sentinel.port(node) + " not primary within " + limit);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        f.log.append("PROMOTED", "port", f.sentinel.port(node), "ms", (System.nanoTime() - start) / 1_000_000);
    }

    /** Polls until {@code node} serves the queue's slot as a primary; fails the run if it never does. */
    private static void awaitPrimary(ChaosRun.Faults f, int node, Duration limit) {
        long start = System.nanoTime();
        while (!f.cluster.isPrimaryOf(node, f.slot)) {
            if (System.nanoTime() - start > limit.toNanos()) {
                throw new IllegalStateException("node " + f.cluster.port(node) + " not primary within " + limit);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
        f.log.append("PROMOTED", "port", f.cluster.port(node), "ms", (System.nanoTime() - start) / 1_000_000);
    }

    private static void require(String reply, String prefix) {
        if (reply == null || !reply.startsWith(prefix)) {
            throw new IllegalStateException("Redis answered " + reply + ", expected " + prefix + "...");
        }
    }
}
