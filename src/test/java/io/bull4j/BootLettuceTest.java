package io.bull4j;

import io.bull4j.consumer.BootLettuceMain;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.queueName;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bull4j on the Lettuce that Spring Boot's dependency management gives a Boot application (docs/spring-boot.md,
 * "Versions under Boot's dependency management": Boot 4.0.7 manages Lettuce 6.8.2, older than bull4j's 7.7.0). The
 * build copies that jar to target/boot-lettuce (maven-dependency-plugin); a child JVM runs bull4j's runtime class
 * path with it in place of bull4j's Lettuce, through a failover's READONLY replies, the path that drops and
 * reconnects connections.
 */
class BootLettuceTest {
    @Test
    void aWorkerOnBootsLettuceGoesOnAfterReadOnlyReplies() throws Exception {
        Path bootLettuce = Path.of("target", "boot-lettuce");
        assertTrue(Files.isDirectory(bootLettuce), bootLettuce + " is written by the build (maven-dependency-plugin)");
        List<Path> jars;
        try (var files = Files.list(bootLettuce)) {
            jars = files.filter(p -> p.getFileName().toString().startsWith("lettuce-core-")).collect(Collectors.toList());
        }
        assertEquals(1, jars.size(), jars.toString());
        String runtime = Arrays.stream(Files.readString(Path.of("target", "runtime-classpath.txt")).trim()
                        .split(File.pathSeparator))
                .map(entry -> entry.contains("lettuce-core-") ? jars.get(0).toAbsolutePath().toString() : entry)
                .collect(Collectors.joining(File.pathSeparator));

        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort(); // closed again: nothing listens there
        }
        try (RedisTestServer redis = RedisTestServer.startDedicated()) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            io.bull4j.support.ProcessRun run = io.bull4j.support.ProcessRun.toEnd(new ProcessBuilder(java, "-cp",
                    location(Queue.class) + File.pathSeparator + location(BootLettuceMain.class) + File.pathSeparator
                    + runtime, BootLettuceMain.class.getName(), redis.bull4jUri(), queueName("boot-lettuce"),
                    String.valueOf(deadPort), redis.uri()), 90);
            String out = run.output();
            assertTrue(out.contains("lettuce=6."), "runs on Boot's Lettuce: " + out);
            assertTrue(out.contains("fetchError=") && !out.contains("fetchError=none"), "the worker reported the refused "
                    + "fetch and went on: " + out);
            assertTrue(out.contains("keptConnections=0"), "the READONLY reply dropped bull4j's connections: " + out);
            assertTrue(out.contains("completed=ok"), out);
            assertEquals(0, run.exitCode(), out);
        }
    }

    private static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
