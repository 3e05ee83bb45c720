package io.bull4j.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A child process run to its end: its exit code and its output (stdout and stderr together). */
public record ProcessRun(int exitCode, String output) {

    /** Starts {@code pb} and waits up to {@code seconds} for it to end; a process still running then fails the test. */
    public static ProcessRun toEnd(ProcessBuilder pb, long seconds) throws Exception {
        Process p = pb.redirectErrorStream(true).start();
        // read while it runs: a child that fills the pipe would block before it ends
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new AssertionError("the child process did not finish within " + seconds + " s");
            }
        } finally {
            p.destroyForcibly();
        }
        return new ProcessRun(p.exitValue(), output.get(10, TimeUnit.SECONDS));
    }
}
