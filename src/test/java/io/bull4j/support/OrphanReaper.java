package io.bull4j.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Stops the redis-servers that a killed test JVM left behind. A shutdown hook stops a server when its JVM exits or
 * gets SIGTERM, but not after SIGKILL (a surefire fork killed on timeout, a developer's kill -9): those servers
 * would run until the machine stops. Each server's directory records the JVM that owns it and the server's pid
 * ({@link #claim}); the next harness that starts a server stops every server whose owner is gone ({@link #reap}).
 */
final class OrphanReaper {
    private static final String OWNER = "owner.pid";
    private static final String SERVERS = "servers.pid";

    private OrphanReaper() {
    }

    /** Records that this JVM owns {@code dir} and the server process in it (one line per server). */
    static void claim(Path dir, Process server) {
        try {
            Files.writeString(dir.resolve(OWNER), Long.toString(ProcessHandle.current().pid()));
            Files.writeString(dir.resolve(SERVERS), server.pid() + "\n", StandardCharsets.US_ASCII,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            // why not fatal: the record only serves a later clean-up; the test can run without it
        }
    }

    /**
     * Stops the servers of every directory named {@code prefix*} in the temp dir whose owner JVM is gone, and
     * deletes the directory. A pid that now belongs to another program (pids are reused) is left alone: only a
     * process whose executable is a Redis one is stopped.
     */
    static void reap(String prefix) {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, prefix + "*")) {
            for (Path dir : dirs) {
                Optional<Long> owner = readPid(dir.resolve(OWNER));
                if (owner.isEmpty() || ProcessHandle.of(owner.get()).map(ProcessHandle::isAlive).orElse(false)) {
                    continue; // no record (an older run) or still owned: not ours to touch
                }
                for (String line : Files.readAllLines(dir.resolve(SERVERS), StandardCharsets.US_ASCII)) {
                    parse(line).flatMap(ProcessHandle::of).filter(OrphanReaper::isRedis)
                            .ifPresent(ProcessHandle::destroyForcibly);
                }
                deleteQuietly(dir);
            }
        } catch (IOException | RuntimeException e) {
            // why ignore: clean-up of another run's leftovers must never fail this run
        }
    }

    // why "redis" and not "redis-server": Debian's redis-server is a link to redis-check-rdb, the name the JDK
    // reports as the command, and Redis rewrites its own command line to "redis-server host:port"
    private static boolean isRedis(ProcessHandle p) {
        return p.info().command().map(c -> c.contains("redis")).orElse(false);
    }

    private static Optional<Long> readPid(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<Long> parse(String text) {
        try {
            return Optional.of(Long.parseLong(text.trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // leftovers in the temp dir are harmless
        }
    }
}
