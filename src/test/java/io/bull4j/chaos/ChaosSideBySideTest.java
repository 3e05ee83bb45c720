package io.bull4j.chaos;

import io.bull4j.chaos.ChaosRun.Plan;
import io.bull4j.chaos.ChaosRun.Result;
import io.bull4j.chaos.Checker.Verdict;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The same chaos against bull4j and against the real bullmq 6.7.0 (Node worker processes; same producer, nemesis,
 * seed and checkers): the table of docs/reliability.md. Worker kill -9 at the libraries' default settings, at 5 s
 * locks, and at 5 s locks with a stalled check every second; SIGSTOP longer than the lock at 5 s locks; and the
 * faults where a live worker can lose a lock, at the defaults and at 5 s locks: CPU-bound processors (no outside
 * fault), {@code CLIENT KILL} of every kind of connection in turn, and Redis {@code SHUTDOWN}. Full
 * variant only ({@code -Pchaos -Dbull4j.chaos=full}). Every run is recorded before any assertion, so that a missed
 * target still leaves the whole table in {@code target/chaos/report.md}.
 */
@Tag("chaos")
class ChaosSideBySideTest {
    private static final boolean FULL = "full".equalsIgnoreCase(System.getProperty("bull4j.chaos", "short"));
    private static final long SEED = Long.getLong("bull4j.chaos.seed", 9L);
    /** A regular expression: runs only the cases whose "scenario, settings" label it is found in (all when unset). */
    private static final String ONLY = System.getProperty("bull4j.chaos.only", "");

    private record Case(String scenario, WorkerSettings settings, Nemesis nemesis, boolean recovery,
                        int addsPerSecond) {
        Case(String scenario, WorkerSettings settings, Nemesis nemesis, boolean recovery) {
            this(scenario, settings, nemesis, recovery, 12);
        }
    }

    @Test
    void bull4jNextToBullmq() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        NodeBullmq.assumeAvailable();
        WorkerSettings defaults = WorkerSettings.defaults(8);
        WorkerSettings fiveSeconds = WorkerSettings.fiveSecondLocks(8);
        List<Case> all = List.of(
                // at 30 s locks a kill every 4 s would kill most jobs twice before their lock expires: every 10 s
                new Case("worker kill -9", defaults, Scenarios.workerKill9(Duration.ofSeconds(10)), true),
                new Case("worker kill -9", fiveSeconds, Scenarios.workerKill9(Duration.ofSeconds(4)), true),
                new Case("worker kill -9",
                        new WorkerSettings("lock 5 s, stalled 1 s", 8, 5_000, 1_000, 1),
                        Scenarios.workerKill9(Duration.ofSeconds(4)), true),
                new Case("SIGSTOP 2 x lock", fiveSeconds,
                        Scenarios.workerPause(Duration.ofSeconds(10), Duration.ofSeconds(5)), false),
                // live workers that lose locks: no outside fault, the processors compute (busy-spin) for their
                // 50 ms - 2 s, 4 per worker. 3 adds/s is about what 4 BullMQ processes (one job computing at a
                // time each) keep up with; 6 adds/s is a peak above it, so that a backlog forms and every worker
                // has all its slots taken, jobs waiting behind the one computing
                new Case("CPU-bound jobs, 3 adds/s", defaults.cpuBound(4), Scenarios.none(), false, 3),
                new Case("CPU-bound jobs, 3 adds/s", fiveSeconds.cpuBound(4), Scenarios.none(), false, 3),
                new Case("CPU-bound jobs, 6 adds/s (backlog)", defaults.cpuBound(4), Scenarios.none(), false, 6),
                new Case("CPU-bound jobs, 6 adds/s (backlog)", fiveSeconds.cpuBound(4), Scenarios.none(), false,
                        6),
                new Case("CLIENT KILL every 3 s", defaults, Scenarios.clientKill(Duration.ofSeconds(3)), false),
                new Case("CLIENT KILL every 3 s", fiveSeconds, Scenarios.clientKill(Duration.ofSeconds(3)), false),
                new Case("Redis SHUTDOWN 3 s every 15 s", defaults,
                        Scenarios.redisRestart(false, Duration.ofSeconds(3), Duration.ofSeconds(15)), false),
                new Case("Redis SHUTDOWN 3 s every 15 s", fiveSeconds,
                        Scenarios.redisRestart(false, Duration.ofSeconds(3), Duration.ofSeconds(15)), false));
        List<Case> cases = all.stream()
                .filter(c -> java.util.regex.Pattern.compile(ONLY).matcher(c.scenario() + ", " + c.settings().label()).find())
                .toList();
        assertTrue(!cases.isEmpty(), "no case matches -Dbull4j.chaos.only=" + ONLY);
        List<Result[]> pairs = new ArrayList<>();
        for (Case c : cases) {
            Plan p = new Plan(c.scenario(), Engine.BULL4J, c.settings(), 4, 5_000, c.addsPerSecond(),
                    Duration.ofSeconds(60),
                    "everysec", null, SEED);
            Result ours = ChaosRun.execute(p, c.nemesis());
            Result theirs = ChaosRun.execute(p.withEngine(Engine.BULLMQ), c.nemesis());
            System.out.println(ChaosReport.row(ours) + "\n" + ChaosReport.row(theirs));
            pairs.add(new Result[] {ours, theirs});
        }
        List<Executable> checks = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Verdict ours = pairs.get(i)[0].verdict();
            Verdict theirs = pairs.get(i)[1].verdict();
            Case c = cases.get(i);
            String what = c.scenario() + ", " + c.settings().label();
            checks.add(() -> assertEquals(List.of(), ours.violations(), what + ": " + ours));
            if (c.recovery()) {
                checks.add(() -> assertTrue(ours.recoveryPercentile(99) <= c.settings().recoveryTargetMs(),
                        what + ": recovery p99 " + ours.recoveryPercentile(99) + " ms > target "
                                + c.settings().recoveryTargetMs() + " ms"));
            }
            // Not for worker kill -9: a job killed twice fails by the stall limit (maxStalledCount 1) whichever library
            // runs it, and how many are killed twice depends on the kills, the 60 s fault window and recovery
            // speed: bull4j's faster recovery (the recovery target) puts a killed job back in reach of a later kill
            // sooner, while BullMQ's 40 - 57 s recovery at the defaults returns most of them after the faults end.
            // The comparison holds where the libraries differ: live workers that lose a lock.
            if (c.recovery()) {
                continue;
            }
            checks.add(() -> assertTrue(ours.failedByStallLimit <= theirs.failedByStallLimit, what
                    + ": failed by the stall limit " + ours.failedByStallLimit + " vs BullMQ "
                    + theirs.failedByStallLimit));
        }
        assertAll(checks);
    }
}
