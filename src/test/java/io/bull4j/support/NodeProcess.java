package io.bull4j.support;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A running {@code node interop.mjs} command (from {@link NodeBullmq#start}). Its stdout JSON lines
 * are queued as they arrive; stderr is kept for failure messages. Close it (try-with-resources) so
 * no Node process outlives its test.
 */
public final class NodeProcess implements AutoCloseable {

    private static final String EOF = "\u0000EOF"; // marks end of stdout in the line queue
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        // why: a test that forgot close() (or failed mid-way) must not leave node running after the JVM
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "node-process-reaper"));
    }

    private final Process process;
    private final List<String> args;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer stderr = new StringBuffer();

    NodeProcess(Process process, List<String> args) {
        this.process = process;
        this.args = args;
        LIVE.add(process);
        process.onExit().thenRun(() -> LIVE.remove(process));
        pump(process.getInputStream(), "stdout", line -> lines.add(line), () -> lines.add(EOF));
        pump(process.getErrorStream(), "stderr", line -> stderr.append(line).append('\n'), () -> { });
    }

    /** The next stdout line as JSON; fails if none arrives in time or the process ends first. */
    public JsonNode awaitLine(Duration timeout) {
        String line;
        try {
            line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for node output", e);
        }
        if (line == null) {
            throw new IllegalStateException("no line from node " + args + " within " + timeout + describe());
        }
        if (line.equals(EOF)) {
            lines.add(EOF); // keep the marker for later calls
            throw new IllegalStateException("node " + args + " closed stdout before printing a line" + describe());
        }
        return NodeBullmq.parse(line, null);
    }

    /** Writes one line to the process's stdin (for scripts that take commands there, like differential.mjs). */
    public void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new IllegalStateException("cannot write to node " + args + describe(), e);
        }
    }

    /** SIGKILL (no cleanup in Node, as in a crash), then waits until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the process to exit by itself and returns its exit code; on timeout kills it and throws. */
    public int waitFor(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
        throw new IllegalStateException("node " + args + " did not exit within " + timeout + describe());
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** stderr printed so far (diagnostics). */
    public String stderr() {
        return stderr.toString();
    }

    public Process process() {
        return process;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    private String describe() {
        String state = process.isAlive() ? "still running" : "exited " + process.exitValue();
        return " (" + state + ")\nstderr:\n" + stderr;
    }

    private void pump(InputStream in, String name, Consumer<String> sink, Runnable atEnd) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (!line.isBlank()) {
                        sink.accept(line);
                    }
                }
            } catch (IOException ignored) {
                // stream closed because the process died: that is the end of output
            } finally {
                atEnd.run();
            }
        }, "node-" + name + "-" + process.pid());
        t.setDaemon(true);
        t.start();
    }
}
