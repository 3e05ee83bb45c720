package io.bull4j.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real bullmq (src/test/node/interop.mjs) from Java tests, so interop is checked against
 * the Node implementation itself. Call {@link #assumeAvailable()} first in every interop test.
 */
public final class NodeBullmq {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration NPM_TIMEOUT = Duration.ofMinutes(5);
    private static boolean installed;

    private NodeBullmq() {
    }

    /** node and npm are on PATH. */
    public static boolean available() {
        return RedisTestServer.onPath("node").isPresent() && RedisTestServer.onPath("npm").isPresent();
    }

    /**
     * Skips the test when Node is missing, except in CI (CI=true) where that is a failure:
     * interop must never silently stop being tested. Also installs bullmq on first use.
     */
    public static void assumeAvailable() {
        if (!available()) {
            String msg = "node and npm must be on PATH for bullmq interop tests (Node 20 recommended)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail(msg + "; CI=true, so this is a failure, not a skip");
            }
            Assumptions.abort(msg);
        }
        ensureInstalled();
    }

    /** The folder holding package.json, package-lock.json and interop.mjs. */
    public static Path nodeDir() {
        // why basedir: surefire sets it; user.dir is the fallback for IDE runs from the project root
        String base = System.getProperty("basedir", System.getProperty("user.dir"));
        Path dir = Path.of(base, "src", "test", "node");
        if (!Files.isRegularFile(dir.resolve("interop.mjs"))) {
            throw new IllegalStateException("interop.mjs not found in " + dir.toAbsolutePath()
                    + "; run the tests from the project root");
        }
        return dir;
    }

    /** npm ci once per JVM, and only when node_modules is missing or older than the lockfile. */
    public static synchronized void ensureInstalled() {
        if (installed) {
            return;
        }
        Path dir = nodeDir();
        if (isStale(dir)) {
            Path log = tempFile("npm-ci");
            try {
                Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
                if (!p.waitFor(NPM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("npm ci timed out after " + NPM_TIMEOUT + " in " + dir
                            + "\n" + read(log));
                }
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("npm ci failed (exit " + p.exitValue() + ") in " + dir
                            + "\n" + read(log));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run npm in " + dir, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted during npm ci", e);
            } finally {
                deleteQuietly(log);
            }
        }
        installed = true;
    }

    /**
     * Runs {@code node interop.mjs args...} to the end and returns its stdout, one JSON object per line.
     * Throws (with stderr) on a non-zero exit or when it outlives the timeout.
     */
    public static List<JsonNode> run(Duration timeout, String... args) {
        ensureInstalled();
        Path stdout = tempFile("node-out");
        Path stderr = tempFile("node-err");
        try {
            // why files: no pipe to drain, so a chatty process can never block on a full buffer
            Process p = new ProcessBuilder(command(args))
                    .directory(nodeDir().toFile())
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile())
                    .start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException("node " + List.of(args) + " still running after " + timeout
                        + "\nstdout:\n" + read(stdout) + "\nstderr:\n" + read(stderr));
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("node " + List.of(args) + " exited " + p.exitValue()
                        + "\nstdout:\n" + read(stdout) + "\nstderr:\n" + read(stderr));
            }
            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(stdout)) {
                if (!line.isBlank()) {
                    lines.add(parse(line, stderr));
                }
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running node " + List.of(args), e);
        } finally {
            deleteQuietly(stdout);
            deleteQuietly(stderr);
        }
    }

    /** {@link #run} for commands that print exactly one line (add, getJob, counts). */
    public static JsonNode runOne(Duration timeout, String... args) {
        List<JsonNode> lines = run(timeout, args);
        if (lines.size() != 1) {
            throw new IllegalStateException("expected one JSON line from node " + List.of(args) + ", got " + lines);
        }
        return lines.get(0);
    }

    /** Starts a long-running command (hang, process, fail); read its lines as they come. */
    public static NodeProcess start(String... args) {
        ensureInstalled();
        try {
            Process p = new ProcessBuilder(command(args)).directory(nodeDir().toFile()).start();
            return new NodeProcess(p, List.of(args));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + List.of(args), e);
        }
    }

    // ---- helpers ----------------------------------------------------------------------------

    /** {@code node interop.mjs args...}, or {@code node <script>.mjs rest...} when the first arg names a script. */
    private static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of("node"));
        if (args.length == 0 || !args[0].endsWith(".mjs")) {
            cmd.add("interop.mjs");
        }
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static boolean isStale(Path dir) {
        // npm writes node_modules/.package-lock.json on every install: compare it to the inputs
        Path marker = dir.resolve("node_modules").resolve(".package-lock.json");
        if (!Files.isRegularFile(marker)) {
            return true;
        }
        try {
            FileTime installedAt = Files.getLastModifiedTime(marker);
            for (String input : List.of("package.json", "package-lock.json")) {
                Path f = dir.resolve(input);
                if (Files.exists(f) && Files.getLastModifiedTime(f).compareTo(installedAt) > 0) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    static JsonNode parse(String line, Path stderrForContext) {
        try {
            return JSON.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(line));
        } catch (IOException e) {
            String context = stderrForContext == null ? "" : "\nstderr:\n" + read(stderrForContext);
            throw new IllegalStateException("node printed a non-JSON line: " + line + context, e);
        }
    }

    private static Path tempFile(String prefix) {
        try {
            return Files.createTempFile("bull4j-" + prefix + "-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException ignored) {
            // a leftover temp file is harmless
        }
    }
}
