package io.bull4j.chaos;

import io.bull4j.chaos.Checker.Verdict;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The runs of this JVM as one markdown table, side by side per scenario, rewritten to
 * {@code target/chaos/report.md} after every run (and one line per run appended to {@code results.md}).
 */
final class ChaosReport {
    private static final List<ChaosRun.Result> RESULTS = new ArrayList<>();
    private static final Path DIR = Path.of("target", "chaos");

    private ChaosReport() {
    }

    static synchronized void record(ChaosRun.Result r) {
        RESULTS.add(r);
        try {
            Files.createDirectories(DIR);
            Files.writeString(DIR.resolve("results.md"), row(r) + "\n", StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            StringBuilder table = new StringBuilder(header());
            RESULTS.forEach(x -> table.append(row(x)).append('\n'));
            Files.writeString(DIR.resolve("report.md"), table);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String header() {
        return "| scenario | engine | settings | adds ok | completed | failed (stall limit) | lost | run twice "
                + "(causes) | overlaps under a valid lock | in flight at kills / pauses "
                + "| recovery p50 / p99 (target) | "
                + "other violations |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    }

    static String row(ChaosRun.Result r) {
        Verdict v = r.verdict();
        WorkerSettings s = r.plan().settings();
        List<String> other = new ArrayList<>(v.violations());
        other.removeIf(x -> x.startsWith("lost ") || x.startsWith("overlapping"));
        if (!v.completionsLostInRedisCrash.isEmpty()) {
            other.add("completions lost in a Redis crash " + v.completionsLostInRedisCrash.size() + ": "
                    + String.join(", ", v.completionsLostInRedisCrash));
        }
        if (!v.lostInRedisCrash.isEmpty()) {
            other.add("acknowledged adds lost in a Redis crash " + v.lostInRedisCrash.size() + ": "
                    + String.join(", ", v.lostInRedisCrash));
        }
        String recovery = v.recoveryMs.isEmpty() ? "-"
                : secs(v.recoveryPercentile(50)) + " / " + secs(v.recoveryPercentile(99)) + " ("
                + secs(s.recoveryTargetMs()) + ")";
        return "| " + r.plan().scenario() + " | " + r.plan().engine().label + " | " + s.label() + " | "
                + v.addsAcknowledged + " | " + v.completed + " | " + v.failed + " (" + v.failedByStallLimit + ") | "
                + v.lost.size() + " | " + v.jobsRunTwice + " " + v.extraRunCauses + " | "
                + v.overlapsUnderValidLock.size() + " | " + v.inFlightAtKills + " / " + v.inFlightAtPauses + " | "
                + recovery + " | "
                + (other.isEmpty() ? "none" : String.join("; ", other)) + " |";
    }

    private static String secs(long ms) {
        return String.format("%.1f s", ms / 1000.0);
    }
}
