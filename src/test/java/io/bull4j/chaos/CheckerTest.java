package io.bull4j.chaos;

import io.bull4j.chaos.Checker.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chaos checkers on hand-written histories (times in ms), so that each can be seen to fail: a run of the suite
 * that finds nothing means something only if the checkers find what they look for. No Redis, runs in every build.
 */
class CheckerTest {
    @TempDir
    Path dir;

    private final Map<String, Set<String>> states = new HashMap<>();
    private final Map<String, String> reasons = new HashMap<>();

    private void line(String proc, String ev, long ms, String... fields) throws IOException {
        StringBuilder json = new StringBuilder("{\"ev\":\"" + ev + "\",\"mono\":" + ms * 1_000_000 + ",\"wall\":"
                + ms * 1_000);
        for (int i = 0; i + 1 < fields.length; i += 2) {
            json.append(",\"").append(fields[i]).append("\":\"").append(fields[i + 1]).append('"');
        }
        Files.writeString(dir.resolve(proc + ".jsonl"), json + "}\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private void added(String id) throws IOException {
        line("producer", "ADD_INVOKE", 0, "job", id);
        line("producer", "ADD_OK", 1, "job", id);
    }

    private void run(String proc, String id, String token, long start, Long end) throws IOException {
        line(proc, "START", start, "job", id, "token", token);
        if (end != null) {
            line(proc, "END", end, "job", id, "token", token);
        }
    }

    private Verdict check() {
        return new Checker(HistoryLog.read(dir), FinalState.of(states, reasons)).check();
    }

    @Test
    void cleanRunHasNoViolations() throws IOException {
        added("j1");
        run("w1.0", "j1", "t1", 10, 20L);
        line("w1.0", "DONE", 21, "job", "j1");
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(1, v.completed);
        assertEquals(0, v.jobsRunTwice);
    }

    @Test
    void secondStartWhileTheFirstRunsUnderAValidLockIsAnOverlap() throws IOException {
        added("j1");
        run("w1.0", "j1", "t1", 10, 500L);
        run("w2.0", "j1", "t2", 100, 200L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(1, v.overlapsUnderValidLock.size(), v.toString());
        assertEquals(1, v.unattributedExtraRuns());
        assertTrue(v.violations().stream().anyMatch(x -> x.startsWith("overlapping runs")), v.violations().toString());
    }

    @Test
    void secondStartAfterAPauseOfTheHolderIsALeaseLossNotAnOverlap() throws IOException {
        added("j1");
        run("w1.0", "j1", "t1", 10, 5_000L);
        line("faults", "SIGSTOP", 50, "proc", "w1.0");
        run("w2.0", "j1", "t2", 3_000, 3_100L);
        line("faults", "SIGCONT", 4_000, "proc", "w1.0");
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(1, v.overlapsAfterLeaseLoss);
        assertEquals(Map.of("pause", 1), v.extraRunCauses);
        assertEquals(1, v.inFlightAtPauses);
    }

    @Test
    void startByAProcessResumedAfterItsLockExpiredIsALeaseLossOfThatProcess() throws IOException {
        added("j1");
        line("faults", "SIGSTOP", 5, "proc", "w1.0"); // w1.0 had fetched j1 just before
        run("w2.0", "j1", "t2", 3_000, 3_100L);
        line("faults", "SIGCONT", 10_000, "proc", "w1.0");
        run("w1.0", "j1", "t1", 10_001, 10_500L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(Map.of("pause of the process that ran it again", 1), v.extraRunCauses);
    }

    /** The same, when the stale start overlaps the new owner's run (seen in CI: chaos SIGSTOP 2 x lock, j109). */
    @Test
    void staleStartOverlappingTheNewOwnersRunIsALeaseLossNotAnOverlapUnderAValidLock() throws IOException {
        added("j1");
        line("faults", "SIGSTOP", 5, "proc", "w1.0"); // w1.0 had fetched j1 just before
        run("w2.0", "j1", "t2", 3_000, 12_000L); // recovered as stalled, run by w2.0 until after w1.0 resumed
        line("faults", "SIGCONT", 10_000, "proc", "w1.0");
        run("w1.0", "j1", "t1", 10_001, 10_500L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(Map.of("pause of the process that ran it again", 1), v.extraRunCauses);
        assertEquals(1, v.overlapsAfterLeaseLoss);
    }

    @Test
    void overlapWhileTheEarlierProcessWasBlockedIsALeaseLoss() throws IOException {
        added("j1");
        run("w1.0", "j1", "t1", 1_000, 9_000L);
        line("w1.0", "BLOCKED", 8_000, "ms", "6500"); // its event loop ran nothing from 1.5 s to 8 s
        run("w2.0", "j1", "t2", 7_000, 7_500L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(Map.of("process blocked", 1), v.extraRunCauses);
        assertEquals(1, v.overlapsAfterLeaseLoss);
    }

    @Test
    void aBlockOutsideTheRunDoesNotExplainAnOverlap() throws IOException {
        added("j1");
        line("w1.0", "BLOCKED", 900, "ms", "800"); // before the run started
        run("w1.0", "j1", "t1", 1_000, 9_000L);
        run("w2.0", "j1", "t2", 7_000, 7_500L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(1, v.overlapsUnderValidLock.size(), v.toString());
        assertEquals(Map.of("unattributed", 1), v.extraRunCauses);
    }

    @Test
    void staleStartByAProcessThatWasBlockedIsALeaseLossOfThatProcess() throws IOException {
        added("j1");
        run("w2.0", "j1", "t2", 3_000, 3_100L);
        line("w1.0", "BLOCKED", 10_000, "ms", "9000"); // w1.0 had fetched j1, then computed for 9 s
        run("w1.0", "j1", "t1", 10_001, 10_500L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(Map.of("block of the process that ran it again", 1), v.extraRunCauses);
    }

    @Test
    void startWrittenWhileTheKillSignalWasOnItsWayIsKilledNotAnOverlap() throws IOException {
        added("j1");
        line("faults", "KILL9", 1_000, "proc", "w1.0");
        run("w1.0", "j1", "t1", 1_001, null); // written after the KILL9 line, before the process died
        line("faults", "EXIT", 1_070, "proc", "w1.0");
        run("w2.0", "j1", "t2", 6_200, 6_300L);
        states.put("j1", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(Map.of("kill", 1), v.extraRunCauses);
    }

    @Test
    void restartAfterAKillIsMeasuredFromTheKill() throws IOException {
        added("j1");
        added("j2");
        run("w1.0", "j1", "t1", 10, null);
        run("w1.0", "j2", "t2", 20, 30L); // finished before the kill: not in flight
        line("faults", "KILL9", 1_000, "proc", "w1.0");
        line("faults", "EXIT", 1_001, "proc", "w1.0");
        run("w2.0", "j1", "t3", 3_500, 3_600L);
        states.put("j1", Set.of("completed"));
        states.put("j2", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of(), v.violations());
        assertEquals(1, v.inFlightAtKills);
        assertEquals(List.of(2_500L), v.recoveryMs);
        assertEquals(Map.of("kill", 1), v.extraRunCauses);
    }

    @Test
    void acknowledgedJobWithoutATerminalStateIsLostAndAccountingFails() throws IOException {
        added("j1");
        added("j2");
        states.put("j1", Set.of("completed"));
        states.put("j2", Set.of("active"));
        Verdict v = check();
        assertEquals(List.of("j2 [active]"), v.lost);
        assertTrue(!v.accountingHolds(), v.toString());
        assertEquals(2, v.violations().size(), v.violations().toString()); // lost, accounting
    }

    @Test
    void jobNeverAddedIsUnexpectedAndJobInTwoStatesIsReported() throws IOException {
        added("j1");
        states.put("j1", Set.of("completed", "wait"));
        states.put("x9", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of("x9"), v.unexpected);
        assertEquals(1, v.twoStates.size());
        assertEquals(3, v.violations().size(), v.violations().toString()); // unexpected, two states, accounting
    }

    @Test
    void failedAddThatAppearsIsAViolationUnlessItsOutcomeWasUnknown() throws IOException {
        line("producer", "ADD_INVOKE", 0, "job", "j1");
        line("producer", "ADD_FAIL", 1, "job", "j1", "error", "RedisException");
        line("producer", "ADD_INVOKE", 2, "job", "j2");
        line("producer", "ADD_FAIL", 3, "job", "j2", "error", Checker.OUTCOME_UNKNOWN);
        states.put("j1", Set.of("completed"));
        states.put("j2", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of("j1"), v.failedAddsApplied);
        assertEquals(List.of("j2"), v.unknownAddsApplied);
        assertEquals(1, v.violations().size(), v.violations().toString());
    }

    @Test
    void completedAgainAfterARedisCrashIsALostWriteOtherwiseADoubleCompletion() throws IOException {
        added("j1");
        added("j2");
        run("w1.0", "j1", "t1", 10, 20L);
        line("w1.0", "DONE", 21, "job", "j1");
        run("w1.0", "j2", "t2", 10, 20L);
        line("w1.0", "DONE", 22, "job", "j2");
        line("faults", "FAULT_BEGIN", 30, "kind", "redis kill -9");
        line("faults", "FAULT_END", 3_000, "kind", "redis kill -9");
        run("w2.0", "j1", "t3", 8_000, 8_100L);
        line("w2.0", "DONE", 8_101, "job", "j1");
        run("w2.0", "j2", "t4", 8_000, 8_100L);
        line("w2.0", "DONE", 8_102, "job", "j2");
        line("w2.0", "DONE", 8_200, "job", "j2"); // recorded twice with no crash between: a fencing failure
        states.put("j1", Set.of("completed"));
        states.put("j2", Set.of("completed"));
        Verdict v = check();
        assertEquals(List.of("j1", "j2"), v.completionsLostInRedisCrash.stream().sorted().toList());
        assertEquals(List.of("j2"), v.finishedTwice);
        assertEquals(1, v.violations().size(), v.violations().toString());
    }

    @Test
    void stallLimitFailuresAreCounted() throws IOException {
        added("j1");
        states.put("j1", Set.of("failed"));
        reasons.put("j1", FinalState.STALL_LIMIT_REASON);
        Verdict v = check();
        assertEquals(1, v.failedByStallLimit);
        assertEquals(List.of(), v.violations());
    }

    @Test
    void anAddAcknowledgedJustBeforeARedisCrashAndGoneIsCountedApartNotAsLost() throws IOException {
        added("j1"); // acknowledged at 1 ms
        line("producer", "ADD_INVOKE", 5_000, "job", "j2");
        line("producer", "ADD_OK", 5_001, "job", "j2");
        line("faults", "FAULT_BEGIN", 5_010, "kind", "cluster primary kill -9");
        line("faults", "FAULT_END", 8_000, "kind", "cluster primary kill -9");
        Verdict v = check();
        assertEquals(List.of("j2 [(no state)] acknowledged 9 ms before"), v.lostInRedisCrash, v.toString());
        assertEquals(List.of("j1 [(no state)]"), v.lost, "acknowledged 5 s before the crash: lost");
        assertTrue(v.violations().stream().anyMatch(s -> s.startsWith("lost 1")), v.violations().toString());
    }

    @Test
    void anAddGoneAfterAFailoverWithoutACrashIsLost() throws IOException {
        line("producer", "ADD_INVOKE", 5_000, "job", "j2");
        line("producer", "ADD_OK", 5_001, "job", "j2");
        line("faults", "FAULT_BEGIN", 5_010, "kind", "CLUSTER FAILOVER");
        line("faults", "FAULT_END", 6_000, "kind", "CLUSTER FAILOVER");
        Verdict v = check();
        assertEquals(List.of(), v.lostInRedisCrash);
        assertEquals(List.of("j2 [(no state)]"), v.lost);
    }
}
