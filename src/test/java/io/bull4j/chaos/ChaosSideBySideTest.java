package io.bull4j.chaos;

import io.bull4j.chaos.ChaosRun.Plan;
import io.bull4j.chaos.ChaosRun.Result;
import io.bull4j.chaos.Checker.Verdict;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The same worker kill -9 chaos against bull4j and against the real bullmq 6.7.0 (Node worker processes, same
 * producer, nemesis, seed and checkers), at the libraries' default settings and at 5 s locks: the table of
 * docs/reliability.md. Full variant only ({@code -Pchaos -Dbull4j.chaos=full}). Every run is recorded before any
 * assertion, so that a missed target still leaves the whole table in {@code target/chaos/report.md}.
 */
@Tag("chaos")
class ChaosSideBySideTest {
    private static final boolean FULL = "full".equalsIgnoreCase(System.getProperty("bull4j.chaos", "short"));
    private static final long SEED = Long.getLong("bull4j.chaos.seed", 9L);

    @Test
    void workerKill9SideBySide() throws Exception {
        assumeTrue(FULL, "full variant only (-Dbull4j.chaos=full)");
        NodeBullmq.assumeAvailable();
        List<WorkerSettings> settings = List.of(WorkerSettings.defaults(8), WorkerSettings.fiveSecondLocks(8));
        List<Result[]> pairs = new ArrayList<>();
        for (WorkerSettings s : settings) {
            // at 30 s locks a kill every 4 s would kill most jobs twice before their lock expires: one every 10 s
            Duration every = Duration.ofSeconds(s.lockMs() >= 30_000 ? 10 : 4);
            Plan p = new Plan("worker kill -9 side by side", Engine.BULL4J, s, 4, 5_000, 12, Duration.ofSeconds(60),
                    "everysec", null, SEED);
            Result ours = ChaosRun.execute(p, Scenarios.workerKill9(every));
            Result theirs = ChaosRun.execute(p.withEngine(Engine.BULLMQ), Scenarios.workerKill9(every));
            System.out.println(ChaosReport.row(ours) + "\n" + ChaosReport.row(theirs));
            pairs.add(new Result[] {ours, theirs});
        }
        List<org.junit.jupiter.api.function.Executable> checks = new ArrayList<>();
        for (Result[] pair : pairs) {
            Verdict ours = pair[0].verdict();
            Verdict theirs = pair[1].verdict();
            WorkerSettings s = pair[0].plan().settings();
            checks.add(() -> assertEquals(List.of(), ours.violations(), s.label() + ": " + ours));
            checks.add(() -> assertTrue(ours.recoveryPercentile(99) <= s.recoveryTargetMs(), s.label()
                    + ": recovery p99 " + ours.recoveryPercentile(99) + " ms > target " + s.recoveryTargetMs()
                    + " ms"));
            checks.add(() -> assertTrue(ours.failedByStallLimit <= theirs.failedByStallLimit, s.label()
                    + ": failed by the stall limit " + ours.failedByStallLimit + " vs BullMQ "
                    + theirs.failedByStallLimit));
        }
        assertAll(checks);
    }
}
