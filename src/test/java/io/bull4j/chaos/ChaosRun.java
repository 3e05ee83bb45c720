package io.bull4j.chaos;

import io.bull4j.chaos.Checker.Verdict;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/**
 * One chaos run: a Redis with AOF, a fleet of worker processes, a producer adding jobs, and a nemesis injecting
 * faults for a fixed time; then every fault is healed, the queue is drained (a bounded wait), the workers stop
 * gracefully, and the checkers read the histories and the final state. Everything it wrote stays in its run
 * directory under {@code target/chaos/} for a post-mortem.
 */
final class ChaosRun {
    /** What a run is made of. */
    record Plan(String scenario, Engine engine, WorkerSettings settings, int workers, int jobs, int addsPerSecond,
                Duration faultTime, String appendfsync, String maxmemory, long seed) {
        Plan withEngine(Engine e) {
            return new Plan(scenario, e, settings, workers, jobs, addsPerSecond, faultTime, appendfsync, maxmemory,
                    seed);
        }
    }

    /** The result: the plan, the checkers' figures, and where the histories are. */
    record Result(Plan plan, Verdict verdict, Path dir) {
    }

    /** What a nemesis can act on, with its own seeded randomness and clock. */
    static final class Faults {
        final WorkerFleet fleet;
        /** The single Redis; null on a cluster run. */
        final ChaosRedis redis;
        /** The cluster and the queue's hash slot on a cluster run; null and -1 otherwise. */
        final ChaosCluster cluster;
        final int slot;
        /** The primary, replica and Sentinels on a Sentinel run; null otherwise. */
        final ChaosSentinel sentinel;
        final History log;
        final Random random;
        final WorkerSettings settings;
        private final long deadline;

        Faults(WorkerFleet fleet, ChaosRedis redis, ChaosCluster cluster, int slot, ChaosSentinel sentinel,
               History log, Random random, WorkerSettings settings, Duration time) {
            this.fleet = fleet;
            this.redis = redis;
            this.cluster = cluster;
            this.slot = slot;
            this.sentinel = sentinel;
            this.log = log;
            this.random = random;
            this.settings = settings;
            this.deadline = System.nanoTime() + time.toNanos();
        }

        boolean timeLeft() {
            return System.nanoTime() < deadline;
        }

        Duration timeLeftDuration() {
            return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        }

        /** Waits out a part of the fault schedule (the schedule is the point: nothing is being waited for). */
        void hold(Duration d) {
            long until = System.nanoTime() + d.toNanos();
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                LockSupport.parkNanos(left);
            }
        }

        /** Polls until the slot's process has written READY; fails the run if it never does. */
        void awaitReady(int slot, Duration limit) {
            long until = System.nanoTime() + limit.toNanos();
            while (!fleet.isReady(slot)) {
                if (System.nanoTime() > until) {
                    throw new IllegalStateException("worker slot " + (slot + 1) + " not ready within " + limit);
                }
                LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            }
        }

        /** A Redis-side fault spanning {@code action}, recorded as FAULT_BEGIN / FAULT_END of {@code kind}. */
        void redisFault(String kind, Runnable action) {
            log.append("FAULT_BEGIN", "kind", kind);
            try {
                action.run();
            } finally {
                log.append("FAULT_END", "kind", kind);
            }
        }
    }

    private ChaosRun() {
    }

    /** Where the queue lives: one Redis, a Redis Cluster, or a primary and replica behind Sentinels. */
    enum Topology { SINGLE, CLUSTER, SENTINEL }

    static Result execute(Plan plan, Nemesis nemesis) throws Exception {
        return execute(plan, nemesis, Topology.SINGLE);
    }

    /**
     * The run on a local Redis Cluster (3 primaries, 3 replicas) instead of one Redis: the queue's name is a hash
     * tag, so that all its keys are in one slot, whose primary and replica the nemesis acts on.
     */
    static Result executeOnCluster(Plan plan, Nemesis nemesis) throws Exception {
        return execute(plan, nemesis, Topology.CLUSTER);
    }

    /** The run on a primary and a replica behind three Sentinels, reached through a Sentinel URI. */
    static Result executeOnSentinel(Plan plan, Nemesis nemesis) throws Exception {
        return execute(plan, nemesis, Topology.SENTINEL);
    }

    private static Result execute(Plan plan, Nemesis nemesis, Topology topology) throws Exception {
        Path dir = runDir(plan);
        boolean onCluster = topology == Topology.CLUSTER;
        String name = "chaos-" + plan.scenario().replaceAll("[^a-z0-9]+", "-");
        String queue = onCluster ? "{" + name + "}" : name;
        ChaosRedis redis = null;
        ChaosCluster cluster = null;
        ChaosSentinel sentinel = null;
        try (History faults = new History(dir.resolve("faults.jsonl"));
             History producerLog = new History(dir.resolve("producer.jsonl"))) {
            switch (topology) {
                case CLUSTER -> cluster = ChaosCluster.start(dir);
                case SENTINEL -> sentinel = ChaosSentinel.start(dir);
                default -> redis = ChaosRedis.start(dir, plan.appendfsync(), plan.maxmemory());
            }
            String uri = switch (topology) {
                case CLUSTER -> cluster.uri();
                case SENTINEL -> sentinel.uri();
                default -> redis.uri();
            };
            int slot = onCluster ? cluster.slotOf("bull:" + queue + ":wait") : -1;
            faults.append("PLAN", "plan", plan.toString(), "redis", uri, "slot", slot);
            WorkerFleet fleet = new WorkerFleet(plan.engine(), plan.settings(), uri, queue, plan.workers(),
                    dir, faults);
            try (Producer producer = new Producer(uri, queue, producerLog, plan.jobs(), plan.addsPerSecond(),
                    plan.seed())) {
                fleet.startAll();
                // the faults and the jobs start once every worker takes jobs: on a loaded machine a JVM can take
                // tens of seconds to get there, and the run would otherwise measure start-up, not faults
                faults.append("FLEET_READY", "all", fleet.awaitAllReady(Duration.ofMinutes(3)));
                producer.start();
                Faults f = new Faults(fleet, redis, cluster, slot, sentinel, faults, new Random(plan.seed()),
                        plan.settings(), plan.faultTime());
                faults.append("NEMESIS_START");
                nemesis.run(f);
                faults.append("NEMESIS_END");
                if (onCluster) {
                    healCluster(cluster, faults);
                }
                if (sentinel != null) {
                    healSentinel(sentinel, faults);
                }
                heal(fleet, redis, faults);
                producer.stop();
                producer.awaitFinished(Duration.ofSeconds(30));
                faults.append("PRODUCER_END", "invoked", producer.invoked());
                awaitDrained(admin(redis, cluster, sentinel, queue), queue, drainLimit(plan.settings()));
                faults.append("DRAINED");
            } finally {
                fleet.close();
            }
            FinalState end = FinalState.read(admin(redis, cluster, sentinel, queue), queue);
            Verdict verdict = new Checker(HistoryLog.read(dir), end).check();
            Files.writeString(dir.resolve("verdict.txt"), plan + "\n" + verdict + "\n"
                    + String.join("\n", verdict.violations()) + "\n");
            Result result = new Result(plan, verdict, dir);
            ChaosReport.record(result);
            return result;
        } finally {
            if (redis != null) {
                redis.close();
            }
            if (cluster != null) {
                cluster.close();
            }
            if (sentinel != null) {
                sentinel.close();
            }
        }
    }

    private static RedisCommands<String, String> admin(ChaosRedis redis, ChaosCluster cluster,
                                                       ChaosSentinel sentinel, String queue) {
        if (sentinel != null) {
            return sentinel.admin();
        }
        return redis != null ? redis.admin() : cluster.adminFor("bull:" + queue + ":wait");
    }

    /** After the last fault behind Sentinel: a killed node back as a replica of the primary, in sync. */
    private static void healSentinel(ChaosSentinel sentinel, History faults) {
        int primary = sentinel.primary();
        for (int i = 0; i < sentinel.size(); i++) {
            if (!sentinel.isAlive(i)) {
                sentinel.restartAsReplicaOf(i, primary);
                faults.append("FAULT_END", "kind", "Sentinel node down at the end");
            }
            if (i != primary) {
                sentinel.awaitReplicating(i, Duration.ofSeconds(60));
            }
        }
    }

    /** After the last fault on a cluster: every killed node restarted, every slot served again. */
    private static void healCluster(ChaosCluster cluster, History faults) {
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.isAlive(i)) {
                cluster.restart(i);
                faults.append("FAULT_END", "kind", "cluster node down at the end");
            }
        }
        cluster.awaitHealthy(Duration.ofSeconds(60));
    }

    /** After the last fault: every paused process resumed, every dead slot restarted, Redis up. */
    private static void heal(WorkerFleet fleet, ChaosRedis redis, History faults) {
        if (redis != null && !redis.isRunning()) {
            redis.restart();
            faults.append("FAULT_END", "kind", "redis down at the end");
        }
        for (int i = 0; i < fleet.size(); i++) {
            ChaosProcess p = fleet.process(i);
            if (p.isAlive()) {
                p.sigcont(); // harmless when it runs
            } else {
                fleet.spawn(i);
            }
        }
    }

    /** A killed worker's last job needs its lock to expire and two stalled checks; then it runs for up to 2 s. */
    private static Duration drainLimit(WorkerSettings s) {
        return Duration.ofMillis(s.lockMs() + 2 * s.stalledMs() + 60_000);
    }

    /**
     * Polls until no job is waiting, delayed or active (the producer has stopped, so nothing else will come), or the
     * limit passes; the checkers then report what did not finish. A job that vanished from every state does not
     * hold the wait up: the checkers count it as lost.
     */
    private static void awaitDrained(RedisCommands<String, String> redis, String queue, Duration limit) {
        String base = "bull:" + queue + ":";
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                long open = redis.llen(base + "wait") + redis.llen(base + "active") + redis.llen(base + "paused")
                        + redis.zcard(base + "delayed") + redis.zcard(base + "prioritized");
                if (open == 0) {
                    return;
                }
            } catch (RuntimeException e) {
                // Redis may still be coming back: poll again
            }
            LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
        }
    }

    private static Path runDir(Plan plan) {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("MMdd-HHmmss"));
        Path dir = Path.of("target", "chaos", stamp + "-" + plan.scenario().replaceAll("[^a-zA-Z0-9]+", "-") + "-"
                + plan.engine().name().toLowerCase() + "-l" + plan.settings().lockMs());
        try {
            return Files.createDirectories(dir).toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
