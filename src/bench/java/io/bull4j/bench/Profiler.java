package io.bull4j.bench;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;

/**
 * With {@code --jfr <prefix>}: a Flight Recorder recording of each measured window only (the per-variant warm-up
 * windows too, but not prefills, the JIT warm-up or the harness's bookkeeping), written to {@code <prefix>-<n>.jfr}
 * in order, with Java execution sampled every millisecond. For the performance work: {@code jfr print --events jdk.ExecutionSample <file>}.
 */
final class Profiler {
    private final String prefix;
    private Recording recording;
    private int count;

    Profiler(String prefix) {
        this.prefix = prefix;
    }

    void start() {
        try {
            recording = new Recording(Configuration.getConfiguration("profile"));
        } catch (IOException | ParseException e) {
            throw new IllegalStateException("cannot load the JFR 'profile' settings", e);
        }
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
        recording.start();
    }

    void stop() {
        if (recording == null) {
            return;
        }
        recording.stop();
        Path file = Path.of(prefix + "-" + (++count) + ".jfr");
        try {
            recording.dump(file);
            Log.log("JFR recording of the window: " + file);
        } catch (IOException e) {
            Log.log("cannot write " + file + ": " + e);
        } finally {
            recording.close();
            recording = null;
        }
    }
}
