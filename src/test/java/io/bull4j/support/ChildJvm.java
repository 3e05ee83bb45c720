package io.bull4j.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A real child JVM running a main class from the test classpath, for crash tests. */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;

    private ChildJvm(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    public static ChildJvm start(Class<?> main, String... args) throws IOException {
        return start(Map.of(), main, args);
    }

    /** With changes to the inherited environment: a null value removes the variable. */
    public static ChildJvm start(Map<String, String> env, Class<?> main, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                main.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        return new ChildJvm(p);
    }

    /** Reads stdout until a line matches, for at most {@code seconds}. */
    public String awaitLine(Predicate<String> match, long seconds) throws Exception {
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                for (String l; (l = out.readLine()) != null; ) {
                    if (match.test(l)) {
                        return l;
                    }
                }
                throw new IllegalStateException("child JVM exited with " + process.waitFor());
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        return line.get(seconds, TimeUnit.SECONDS);
    }

    /** SIGKILL: no shutdown hooks, no cleanup, like a machine dying. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
