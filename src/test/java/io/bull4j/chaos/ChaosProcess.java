package io.bull4j.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A child process of the chaos suite (a worker JVM, a Node worker, a redis-server) with the signals the nemesis
 * sends. Its stdout and stderr go to a log file in the run directory. Every process still alive when the test JVM
 * exits is killed, so that a failed run leaves nothing behind.
 */
final class ChaosProcess {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "chaos-process-reaper"));
    }

    private final String name;
    private final Process process;

    private ChaosProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        LIVE.add(process);
        process.onExit().thenRun(() -> LIVE.remove(process));
    }

    static ChaosProcess start(String name, List<String> command, Path workDir, Path log) {
        try {
            Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            return new ChaosProcess(name, p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, then waits until the process is gone. */
    void kill9() {
        process.destroyForcibly();
        awaitExit(20);
    }

    /** SIGTERM; true if the process exited within {@code seconds}. */
    boolean terminate(long seconds) {
        process.destroy();
        return awaitExit(seconds);
    }

    void sigstop() {
        signal("STOP");
    }

    void sigcont() {
        signal("CONT");
    }

    boolean awaitExit(long seconds) {
        try {
            return process.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void signal(String sig) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + sig, String.valueOf(process.pid())).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + sig + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
