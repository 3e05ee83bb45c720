package io.bull4j.chaos;

import io.bull4j.chaos.HistoryLog.Event;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads a run's histories (producer, workers, faults) and the queue's final state in Redis, and measures what the
 * at-least-once promise is about. Each figure is defined in {@link Verdict}.
 *
 * <p>A run is one processor execution: START to END in one worker process (END is absent when the process died or
 * the run was still going at the end). A job run more than once has "extra runs"; each is attributed to what made
 * its predecessor lose its lease between the two STARTs: a kill of its process, a SIGSTOP of it, a time when its
 * process ran none of its timers (BLOCKED: a busy event loop, a starved JVM), a Redis-side fault, or a lost lock
 * the worker reported by itself. A later run that starts while an earlier one is still
 * executing in a live process with none of those causes is an overlap under a valid lock.
 */
final class Checker {
    /** One processor execution. */
    record Run(String proc, String job, String token, long start, Long end) {
        boolean runningAt(long t) {
            return start <= t && (end == null || end > t);
        }
    }

    private record Window(String kind, long from, long to) {
        boolean intersects(long a, long b) {
            return from <= b && to >= a;
        }
    }

    /**
     * The exception that says an add was sent and its outcome is unknown (the reliability fixes of issue 9): such a
     * job may exist. Any other failure says the add was not applied, so the job must never appear.
     */
    static final String OUTCOME_UNKNOWN = "RedisOutcomeUnknownException";

    /**
     * How long before a Redis crash an acknowledged write may still be missing from what survives it: a replica
     * lags its primary by a few milliseconds, an everysec AOF by up to two seconds.
     */
    static final long CRASH_LOSS_WINDOW_NANOS = 2_000_000_000L;

    private final HistoryLog log;
    private final FinalState state;
    private final Map<String, List<Run>> runsByJob = new TreeMap<>();
    private final Map<String, Long> exitAt = new HashMap<>();
    private final Map<String, List<Long>> killsAt = new HashMap<>();
    private final Map<String, List<Window>> pausedIn = new HashMap<>();
    /** Per process, the times its ticker ran more than a second late (BLOCKED lines: from = mono - ms). */
    private final Map<String, List<Window>> blockedIn = new HashMap<>();
    private final List<Window> redisFaults = new ArrayList<>();
    /**
     * When acknowledged writes could be lost by Redis itself: the {@link #CRASH_LOSS_WINDOW_NANOS} before a kill -9,
     * and a Sentinel failover from that long before it began to its end (the old primary took writes until
     * Sentinel demoted it). The window's end is the crash.
     */
    private final List<Window> crashes = new ArrayList<>();
    private final Map<String, List<Long>> lockLostAt = new HashMap<>(); // key: proc + " " + job

    Checker(HistoryLog log, FinalState state) {
        this.log = log;
        this.state = state;
        indexRuns();
        indexFaults();
    }

    private void indexRuns() {
        Map<String, Long> ends = new HashMap<>();
        log.of("END").forEach(e -> ends.put(e.proc() + " " + e.job() + " " + e.text("token"), e.mono()));
        log.of("START").forEach(e -> runsByJob.computeIfAbsent(e.job(), k -> new ArrayList<>())
                .add(new Run(e.proc(), e.job(), e.text("token"), e.mono(),
                        ends.get(e.proc() + " " + e.job() + " " + e.text("token")))));
        runsByJob.values().forEach(l -> l.sort(Comparator.comparingLong(Run::start)));
        log.of("BLOCKED").forEach(e -> blockedIn.computeIfAbsent(e.proc(), k -> new ArrayList<>())
                .add(new Window("blocked", e.mono() - (long) (e.fields().get("ms").asDouble() * 1e6), e.mono())));
        log.of("LOCK_LOST").forEach(e -> lockLostAt.computeIfAbsent(e.proc() + " " + e.job(),
                k -> new ArrayList<>()).add(e.mono()));
    }

    private void indexFaults() {
        Map<String, Long> stoppedAt = new HashMap<>();
        Map<String, Long> openRedisFaults = new HashMap<>();
        long lastEvent = log.events.isEmpty() ? 0 : log.events.get(log.events.size() - 1).mono();
        for (Event e : log.events) {
            if (!e.proc().equals("faults")) {
                continue;
            }
            String proc = e.text("proc");
            switch (e.ev()) {
                case "KILL9" -> killsAt.computeIfAbsent(proc, k -> new ArrayList<>()).add(e.mono());
                case "EXIT" -> exitAt.put(proc, e.mono());
                case "SIGSTOP" -> stoppedAt.put(proc, e.mono());
                case "SIGCONT" -> pausedIn.computeIfAbsent(proc, k -> new ArrayList<>())
                        .add(new Window("pause", stoppedAt.remove(proc), e.mono()));
                case "FAULT_BEGIN" -> {
                    openRedisFaults.put(e.text("kind"), e.mono());
                    if (e.text("kind").contains("kill -9")) {
                        crashes.add(new Window("crash", e.mono() - CRASH_LOSS_WINDOW_NANOS, e.mono()));
                    }
                }
                case "FAULT_END" -> {
                    redisFaults.add(new Window(e.text("kind"), openRedisFaults.remove(e.text("kind")), e.mono()));
                    // the old primary took writes until Sentinel demoted it, at the fault's end: lost as in a crash
                    if (e.text("kind").equals(Scenarios.SENTINEL_FAILOVER)) {
                        crashes.add(new Window("failover", redisFaults.get(redisFaults.size() - 1).from()
                                - CRASH_LOSS_WINDOW_NANOS, e.mono()));
                    }
                }
                default -> { }
            }
        }
        stoppedAt.forEach((proc, t) -> pausedIn.computeIfAbsent(proc, k -> new ArrayList<>())
                .add(new Window("pause", t, lastEvent)));
        openRedisFaults.forEach((kind, t) -> redisFaults.add(new Window(kind, t, lastEvent)));
    }

    private boolean pausedBetween(String proc, long from, long to) {
        return pausedIn.getOrDefault(proc, List.of()).stream().anyMatch(w -> w.intersects(from, to));
    }

    private boolean blockedBetween(String proc, long from, long to) {
        return blockedIn.getOrDefault(proc, List.of()).stream().anyMatch(w -> w.intersects(from, to));
    }

    /** Why {@code earlier} lost its lease before {@code laterStart}, or null when nothing explains it. */
    private String leaseLossCause(Run earlier, long laterStart) {
        // a START written between the KILL9 line and the process's death (the signal was on its way) was killed too
        Long died = exitAt.get(earlier.proc());
        if (killsAt.getOrDefault(earlier.proc(), List.of()).stream().anyMatch(t -> t <= laterStart
                && (t >= earlier.start() || died != null && died >= earlier.start() && died <= laterStart))) {
            return "kill";
        }
        if (pausedIn.getOrDefault(earlier.proc(), List.of()).stream()
                .anyMatch(w -> w.intersects(earlier.start(), laterStart))) {
            return "pause";
        }
        if (blockedBetween(earlier.proc(), earlier.start(), laterStart)) {
            return "process blocked";
        }
        for (Window w : redisFaults) {
            if (w.intersects(earlier.start(), laterStart)) {
                return w.kind();
            }
        }
        if (lockLostAt.getOrDefault(earlier.proc() + " " + earlier.job(), List.of()).stream()
                .anyMatch(t -> t >= earlier.start() && t <= laterStart)) {
            return "lock lost (reported by the worker)";
        }
        Long exit = exitAt.get(earlier.proc());
        if (exit != null && exit >= earlier.start() && exit <= laterStart) {
            return "graceful shutdown";
        }
        return null;
    }

    /**
     * Why {@code later} is the stale run, or null: its process fetched the job, was paused (or blocked behind
     * CPU-bound work) after {@code earlierStart} while its lock expired and another worker ran the job, and then
     * started the job all the same.
     */
    private String staleRunCause(Run later, long earlierStart) {
        if (pausedBetween(later.proc(), earlierStart, later.start())) {
            return "pause of the process that ran it again";
        }
        if (blockedBetween(later.proc(), earlierStart, later.start())) {
            return "block of the process that ran it again";
        }
        return null;
    }

    Verdict check() {
        Verdict v = new Verdict();
        Set<String> invoked = new HashSet<>();
        Set<String> acknowledged = new TreeSet<>();
        Set<String> failedAdds = new TreeSet<>();
        Set<String> outcomeUnknown = new HashSet<>();
        log.of("ADD_INVOKE").forEach(e -> invoked.add(e.job()));
        log.of("ADD_OK").forEach(e -> acknowledged.add(e.job()));
        log.of("ADD_FAIL").forEach(e -> {
            failedAdds.add(e.job());
            if (OUTCOME_UNKNOWN.equals(e.text("error"))) {
                outcomeUnknown.add(e.job());
            }
        });
        v.addsInvoked = invoked.size();
        v.addsAcknowledged = acknowledged.size();
        v.addsFailed = failedAdds.size();

        // C1: every acknowledged add ends completed or failed; nothing appears that was never added
        Map<String, Long> addOkAt = new HashMap<>();
        log.of("ADD_OK").forEach(e -> addOkAt.put(e.job(), e.mono()));
        for (String id : acknowledged) {
            if (!state.isTerminal(id)) {
                String lost = id + " " + state.statesById.getOrDefault(id, Set.of("(no state)"));
                long ackAt = addOkAt.get(id);
                // acknowledged by a Redis that crashed right after: the write may not have left it (async
                // replication to a replica, or an AOF not yet written); counted apart, with its evidence
                Long crash = crashes.stream().filter(w -> ackAt >= w.from() && ackAt <= w.to()).map(Window::to)
                        .findFirst().orElse(null);
                if (crash != null && !state.statesById.containsKey(id)) {
                    v.lostInRedisCrash.add(lost + " acknowledged " + (crash - ackAt) / 1_000_000 + " ms before");
                } else {
                    v.lost.add(lost);
                }
            }
        }
        Set<String> seen = new TreeSet<>(state.statesById.keySet());
        seen.addAll(runsByJob.keySet());
        for (String id : seen) {
            if (!invoked.contains(id)) {
                v.unexpected.add(id);
            } else if (failedAdds.contains(id) && !acknowledged.contains(id)) {
                (outcomeUnknown.contains(id) ? v.unknownAddsApplied : v.failedAddsApplied).add(id);
            }
        }

        // C3: one state per job at the end
        state.statesById.forEach((id, states) -> {
            if (states.size() > 1) {
                v.twoStates.add(id + " " + states);
            }
        });

        // C2: terminal accounting
        v.completed = state.idsIn("completed").size();
        v.failed = state.idsIn("failed").size();
        v.failedByStallLimit = (int) state.failedReason.values().stream()
                .filter(r -> r.contains(FinalState.STALL_LIMIT_REASON)).count();
        v.expectedTerminal = acknowledged.size() - v.lostInRedisCrash.size() + v.failedAddsApplied.size() + v.unknownAddsApplied.size();
        v.unfinished = state.unfinished();

        // C4, C5: extra runs and their causes; overlaps under a valid lock
        Map<String, List<Long>> doneAt = new HashMap<>();
        log.of("DONE").forEach(e -> doneAt.computeIfAbsent(e.job(), k -> new ArrayList<>()).add(e.mono()));
        doneAt.forEach((id, times) -> {
            for (int i = 1; i < times.size(); i++) {
                long earlier = times.get(i - 1);
                long later = times.get(i);
                // a Redis crash between the two: the first completion was acknowledged but not persisted
                // or the first acknowledged in a failover's window, and lost with the old primary's writes
                boolean crashBetween = crashes.stream().anyMatch(w -> w.to() >= earlier && w.to() <= later
                        || w.kind().equals("failover") && earlier >= w.from() && earlier <= w.to());
                (crashBetween ? v.completionsLostInRedisCrash : v.finishedTwice).add(id);
            }
        });
        for (List<Run> runs : runsByJob.values()) {
            v.runs += runs.size();
            if (runs.size() > 1) {
                v.jobsRunTwice++;
            }
            for (int i = 1; i < runs.size(); i++) {
                Run later = runs.get(i);
                Run previous = runs.get(i - 1);
                String cause = leaseLossCause(previous, later.start());
                if (cause == null) {
                    cause = staleRunCause(later, previous.start());
                }
                v.extraRunCauses.merge(cause == null ? "unattributed" : cause, 1, Integer::sum);
                for (int j = 0; j < i; j++) {
                    Run earlier = runs.get(j);
                    if (!earlier.runningAt(later.start())) {
                        continue;
                    }
                    String why = leaseLossCause(earlier, later.start());
                    if (why == null || why.equals("graceful shutdown")) {
                        why = staleRunCause(later, earlier.start());
                    }
                    if (why == null || why.equals("graceful shutdown")) {
                        v.overlapsUnderValidLock.add(later.job() + ": " + earlier.proc() + " still running when "
                                + later.proc() + " started it");
                    } else {
                        v.overlapsAfterLeaseLoss++;
                    }
                }
            }
        }

        // recovery: from each kill -9 to the next start of every job the killed process was running
        for (Map.Entry<String, List<Long>> kills : killsAt.entrySet()) {
            for (long killedAt : kills.getValue()) {
                for (List<Run> runs : runsByJob.values()) {
                    Run inFlight = runs.stream().filter(r -> r.proc().equals(kills.getKey()) && r.runningAt(killedAt))
                            .findFirst().orElse(null);
                    if (inFlight == null) {
                        continue;
                    }
                    v.inFlightAtKills++;
                    runs.stream().filter(r -> r.start() > killedAt).findFirst().ifPresentOrElse(
                            next -> v.recoveryMs.add((next.start() - killedAt) / 1_000_000),
                            () -> v.notRestartedAfterKill.add(inFlight.job() + " " + state.statesById
                                    .getOrDefault(inFlight.job(), Set.of("(no state)"))));
                }
            }
        }
        v.recoveryMs.sort(null);

        // the jobs a SIGSTOP froze: the ones that may run twice once the lock expires
        for (Map.Entry<String, List<Window>> pauses : pausedIn.entrySet()) {
            for (Window w : pauses.getValue()) {
                for (List<Run> runs : runsByJob.values()) {
                    if (runs.stream().anyMatch(r -> r.proc().equals(pauses.getKey()) && r.runningAt(w.from()))) {
                        v.inFlightAtPauses++;
                    }
                }
            }
        }
        return v;
    }

    /** The figures of one run. */
    static final class Verdict {
        int addsInvoked;
        int addsAcknowledged;
        int addsFailed;
        /** Acknowledged adds that are not completed or failed at the end. Must be empty. */
        final List<String> lost = new ArrayList<>();
        /**
         * Acknowledged adds that are in no state at the end, acknowledged at most 2 s before a Redis {@code kill -9}
         * (of a cluster primary, whose replication is asynchronous, or of a Redis with an everysec AOF): the write
         * was lost with the crash, which Redis does not promise to prevent without WAIT. Counted with the delay,
         * not a violation; scenarios without a crash must have none.
         */
        final List<String> lostInRedisCrash = new ArrayList<>();
        /** Jobs seen in Redis or run that the producer never tried to add. Must be empty. */
        final List<String> unexpected = new ArrayList<>();
        /** Adds that threw, not as "outcome unknown", and yet the job exists (issue 9, defect 1). Must be empty. */
        final List<String> failedAddsApplied = new ArrayList<>();
        /** Adds that threw "outcome unknown" and whose job exists: allowed, counted. */
        final List<String> unknownAddsApplied = new ArrayList<>();
        /** Jobs in more than one state key at the end. Must be empty. */
        final List<String> twoStates = new ArrayList<>();
        /** Jobs whose completion two workers both recorded (the token check must refuse the second). */
        final List<String> finishedTwice = new ArrayList<>();
        /**
         * Jobs completed, then completed again after a Redis kill -9 that came between: the first completion was
         * acknowledged but not yet in the AOF (with {@code everysec}, Redis may answer before it writes while an
         * fsync is slow). Not a fencing failure; must be empty with {@code appendfsync always}.
         */
        final List<String> completionsLostInRedisCrash = new ArrayList<>();
        /** A run that started while an earlier run of the job executed under a lock nothing had broken. */
        final List<String> overlapsUnderValidLock = new ArrayList<>();
        int overlapsAfterLeaseLoss;
        int completed;
        int failed;
        int failedByStallLimit;
        int expectedTerminal;
        long unfinished;
        int runs;
        int jobsRunTwice;
        final Map<String, Integer> extraRunCauses = new LinkedHashMap<>();
        int inFlightAtKills;
        int inFlightAtPauses;
        final List<Long> recoveryMs = new ArrayList<>();
        final List<String> notRestartedAfterKill = new ArrayList<>();

        /** Terminal accounting: completed + failed equals the acknowledged (and applied) adds. */
        boolean accountingHolds() {
            return completed + failed == expectedTerminal && unfinished == 0;
        }

        /** Nearest-rank percentile of the recovery latencies, or -1 with none. */
        long recoveryPercentile(double p) {
            if (recoveryMs.isEmpty()) {
                return -1;
            }
            int rank = (int) Math.ceil(p / 100.0 * recoveryMs.size());
            return recoveryMs.get(Math.max(0, rank - 1));
        }

        int unattributedExtraRuns() {
            return extraRunCauses.getOrDefault("unattributed", 0);
        }

        /** The safety properties that must hold in every scenario; each broken one is named. */
        List<String> violations() {
            List<String> out = new ArrayList<>();
            if (!lost.isEmpty()) {
                out.add("lost " + lost.size() + ": " + first(lost));
            }
            if (!unexpected.isEmpty()) {
                out.add("unexpected " + unexpected.size() + ": " + first(unexpected));
            }
            if (!failedAddsApplied.isEmpty()) {
                out.add("failed adds applied anyway " + failedAddsApplied.size() + ": " + first(failedAddsApplied));
            }
            if (!twoStates.isEmpty()) {
                out.add("in two states " + twoStates.size() + ": " + first(twoStates));
            }
            if (!finishedTwice.isEmpty()) {
                out.add("completed twice " + finishedTwice.size() + ": " + first(finishedTwice));
            }
            if (!overlapsUnderValidLock.isEmpty()) {
                out.add("overlapping runs under a valid lock " + overlapsUnderValidLock.size() + ": "
                        + first(overlapsUnderValidLock));
            }
            if (!accountingHolds()) {
                out.add("terminal accounting: completed " + completed + " + failed " + failed + " != "
                        + expectedTerminal + " expected (unfinished " + unfinished + ")");
            }
            if (unattributedExtraRuns() > 0) {
                out.add("extra runs with no lease loss to explain them: " + unattributedExtraRuns());
            }
            return out;
        }

        private static String first(List<String> l) {
            return String.join(", ", l.subList(0, Math.min(5, l.size()))) + (l.size() > 5 ? ", ..." : "");
        }

        @Override
        public String toString() {
            return "adds " + addsInvoked + " invoked / " + addsAcknowledged + " acknowledged / " + addsFailed
                    + " failed (" + failedAddsApplied.size() + " applied anyway, " + unknownAddsApplied.size()
                    + " of unknown outcome applied); completed " + completed
                    + ", failed " + failed + " (stall limit " + failedByStallLimit + "), unfinished " + unfinished
                    + "; lost " + lost.size() + " (in a Redis crash " + lostInRedisCrash.size() + "), unexpected " + unexpected.size() + ", two states "
                    + twoStates.size() + "; runs " + runs + ", jobs run twice " + jobsRunTwice + " " + extraRunCauses
                    + ", overlaps under a valid lock " + overlapsUnderValidLock.size() + ", after lease loss "
                    + overlapsAfterLeaseLoss + ", completed twice " + finishedTwice.size()
                    + " (again after a Redis crash " + completionsLostInRedisCrash.size() + "); in flight at kills "
                    + inFlightAtKills + " (at pauses " + inFlightAtPauses + "), restarted "
                    + recoveryMs.size() + ", recovery p50 "
                    + recoveryPercentile(50) + " ms, p99 " + recoveryPercentile(99) + " ms, max "
                    + recoveryPercentile(100) + " ms";
        }
    }
}
