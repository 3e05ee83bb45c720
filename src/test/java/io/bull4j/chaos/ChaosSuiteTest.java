package io.bull4j.chaos;

import io.bull4j.chaos.ChaosRun.Plan;
import io.bull4j.chaos.ChaosRun.Result;
import io.bull4j.chaos.Checker.Verdict;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The chaos suite of docs/reliability.md: worker processes, a producer and a nemesis, then checkers over the
 * histories. Tagged {@code chaos}, so that {@code mvn test} leaves it out; {@code mvn test -Pchaos} runs the short
 * variant (the CI's), {@code -Dbull4j.chaos=full} every scenario at full size. The table of every run is written
 * to {@code target/chaos/report.md}.
 *
 * <p>Every scenario asserts the safety properties (nothing lost, nothing unexpected, one state per job, terminal
 * accounting, no overlapping runs under a valid lock, every extra run explained by a lease loss). The recovery
 * target and the comparison with BullMQ are {@link ChaosSideBySideTest}'s.
 */
@Tag("chaos")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChaosSuiteTest {
    private static final boolean FULL = "full".equalsIgnoreCase(System.getProperty("bull4j.chaos", "short"));
    private static final long SEED = Long.getLong("bull4j.chaos.seed", 9L);

    /** Short: 3 workers x 4 for 25 s with 2 s locks; full: 4 workers x 8 for 60 s with the settings given. */
    private static Plan plan(String scenario, Engine engine, WorkerSettings full, WorkerSettings brief) {
        return FULL
                ? new Plan(scenario, engine, full, 4, 5_000, 12, Duration.ofSeconds(60), "everysec", null, SEED)
                : new Plan(scenario, engine, brief, 3, 1_000, 8, Duration.ofSeconds(25), "everysec", null, SEED);
    }

    private static WorkerSettings shortLocks(int concurrency) {
        return new WorkerSettings("lock 2 s, stalled 1 s", concurrency, 2_000, 1_000, 1);
    }

    private static Result run(Plan plan, Nemesis nemesis) throws Exception {
        if (plan.engine() == Engine.BULLMQ) {
            NodeBullmq.assumeAvailable();
        }
        Result r = ChaosRun.execute(plan, nemesis);
        System.out.println(ChaosReport.row(r) + "\n  " + r.dir());
        return r;
    }

    private static void assertSafe(Result r) {
        Verdict v = r.verdict();
        assertTrue(v.addsAcknowledged > 0, "the producer added jobs: " + v);
        assertTrue(v.completed > 0, "workers completed jobs: " + v);
        assertEquals(List.of(), v.violations(), "safety in " + r.plan().scenario() + " (" + r.dir() + "): " + v);
    }

    @Test
    @Order(1)
    void workerKill9() throws Exception {
        Result r = run(plan("worker kill -9", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), shortLocks(4)),
                Scenarios.workerKill9(Duration.ofSeconds(FULL ? 4 : 3)));
        assertSafe(r);
        assertTrue(r.verdict().inFlightAtKills > 0, "kills hit running jobs: " + r.verdict());
    }

    @Test
    @Order(2)
    void workerSigstopLongerThanLock() throws Exception {
        Plan p = plan("SIGSTOP 2 x lock", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), shortLocks(4));
        Duration pause = Duration.ofMillis(2 * p.settings().lockMs());
        Result r = run(p, Scenarios.workerPause(pause, Duration.ofSeconds(FULL ? 5 : 2)));
        assertSafe(r);
        assertTrue(r.verdict().overlapsAfterLeaseLoss + r.verdict().jobsRunTwice > 0,
                "a pause longer than the lock lets another worker take the job: " + r.verdict());
    }

    @Test
    @Order(3)
    void gracefulRollingRestart() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Result r = run(plan("rolling restart (SIGTERM)", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.rollingRestart(Duration.ofSeconds(5)));
        assertSafe(r);
        assertEquals(0, r.verdict().jobsRunTwice, "a graceful close lets running jobs finish: " + r.verdict());
    }

    @Test
    @Order(4)
    void redisShutdownEverysec() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        assertSafe(run(plan("Redis SHUTDOWN, AOF everysec", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.redisRestart(false, Duration.ofSeconds(3), Duration.ofSeconds(15))));
    }

    @Test
    @Order(5)
    void redisKill9Everysec() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        assertSafe(run(plan("Redis kill -9, AOF everysec", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.redisRestart(true, Duration.ofSeconds(3), Duration.ofSeconds(15))));
    }

    @Test
    @Order(6)
    void redisKill9Always() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Plan p = plan("Redis kill -9, AOF always", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null);
        p = new Plan(p.scenario(), p.engine(), p.settings(), p.workers(), p.jobs(), p.addsPerSecond(), p.faultTime(),
                "always", null, p.seed());
        Result r = run(p, Scenarios.redisRestart(true, Duration.ofSeconds(3), Duration.ofSeconds(15)));
        assertSafe(r);
        assertEquals(List.of(), r.verdict().completionsLostInRedisCrash, "fsync always loses no completion");
        assertEquals(List.of(), r.verdict().lostInRedisCrash, "fsync always loses no acknowledged add");
    }

    @Test
    @Order(7)
    void scriptFlush() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        assertSafe(run(plan("SCRIPT FLUSH every 1 s", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.scriptFlush(Duration.ofSeconds(1))));
    }

    @Test
    @Order(8)
    void clientKill() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        assertSafe(run(plan("CLIENT KILL every 3 s", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.clientKill(Duration.ofSeconds(3))));
    }

    @Test
    @Order(9)
    void clientPause() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        assertSafe(run(plan("CLIENT PAUSE 3 s WRITE", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.clientPause(Duration.ofSeconds(3), Duration.ofSeconds(10))));
    }

    @Test
    @Order(10)
    void maxmemoryNoeviction() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Result r = run(plan("maxmemory noeviction", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null),
                Scenarios.maxmemoryNoeviction(32 * 1024, Duration.ofSeconds(8), Duration.ofSeconds(12)));
        assertSafe(r);
        List<HistoryLog.Event> oomAdds = HistoryLog.read(r.dir()).of("ADD_FAIL")
                .filter(e -> String.valueOf(e.text("msg")).contains("OOM")).toList();
        assertTrue(oomAdds.size() > 0, "memory ran out while the producer added: " + r.verdict());
        for (HistoryLog.Event e : oomAdds) {
            assertTrue(Set.of("RedisException", "RedisNotAppliedException").contains(e.text("error")),
                    "an OOM error reply is a refusal before any write, not an unknown outcome: " + e.fields());
        }
    }

    @Test
    @Order(11)
    void clusterManualFailover() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Plan p = plan("cluster CLUSTER FAILOVER", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null);
        Result r = ChaosRun.executeOnCluster(p, Scenarios.clusterFailover(Duration.ofSeconds(15)));
        System.out.println(ChaosReport.row(r) + "\n  " + r.dir());
        assertSafe(r);
        assertEquals(List.of(), r.verdict().lostInRedisCrash, "a graceful failover loses nothing");
        assertEquals(List.of(), r.verdict().completionsLostInRedisCrash, "a graceful failover loses nothing");
        assertTrue(HistoryLog.read(r.dir()).of("PROMOTED").count() > 0, "failovers happened");
    }

    @Test
    @Order(12)
    void clusterPrimaryKill9() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Plan p = plan("cluster primary kill -9", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null);
        Result r = ChaosRun.executeOnCluster(p, Scenarios.clusterPrimaryKill9(Duration.ofSeconds(15)));
        System.out.println(ChaosReport.row(r) + "\n  " + r.dir());
        assertSafe(r); // writes lost with the primary are counted apart (lostInRedisCrash), not as lost
        assertTrue(HistoryLog.read(r.dir()).of("PROMOTED").count() > 0, "replicas took over");
    }

    @Test
    @Order(13)
    void sentinelFailover() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Plan p = plan("Sentinel SENTINEL FAILOVER", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null);
        Result r = ChaosRun.executeOnSentinel(p, Scenarios.sentinelFailover(Duration.ofSeconds(15)));
        System.out.println(ChaosReport.row(r) + "\n  " + r.dir());
        assertSafe(r); // writes the old primary took before Sentinel demoted it are counted apart (lostInRedisCrash)
        assertTrue(HistoryLog.read(r.dir()).of("DEMOTED").count() > 0, "failovers happened");
    }

    @Test
    @Order(14)
    void sentinelPrimaryKill9() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        Plan p = plan("Sentinel primary kill -9", Engine.BULL4J, WorkerSettings.fiveSecondLocks(8), null);
        Result r = ChaosRun.executeOnSentinel(p, Scenarios.sentinelPrimaryKill9(Duration.ofSeconds(15)));
        System.out.println(ChaosReport.row(r) + "\n  " + r.dir());
        assertSafe(r);
        assertTrue(HistoryLog.read(r.dir()).of("PROMOTED").count() > 0, "the replica took over");
    }
}
