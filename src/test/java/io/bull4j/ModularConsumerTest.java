package io.bull4j;

import io.bull4j.consumer.ModularConsumerMain;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.queueName;
import static org.junit.jupiter.api.Assertions.*;

/**
 * bull4j as an application gets it: module {@code io.bull4j} on the module path with exactly the runtime
 * dependencies Maven resolves for it (target/runtime-classpath.txt, written by the build), used from an
 * application class on the class path in a child JVM. Proves the module descriptor resolves against Lettuce,
 * Jackson and SLF4J (Micrometer, OpenTelemetry and Spring, static requirements, absent), exports the API packages only, loads its Lua
 * scripts and version from inside the module,
 * and that Netty's epoll transport is not forced on users (Lettuce runs on NIO unless they add it).
 */
class ModularConsumerTest {
    private static final Path CLASSES = location(Queue.class);

    @Test
    void descriptorNamesTheModuleAndExportsOnlyTheApi() {
        ModuleDescriptor d = ModuleFinder.of(CLASSES).find("io.bull4j")
                .orElseThrow(() -> new AssertionError("no module io.bull4j in " + CLASSES))
                .descriptor();
        assertFalse(d.isAutomatic() || d.isOpen(), "an explicit, closed module");
        assertEquals(List.of("io.bull4j", "io.bull4j.micrometer", "io.bull4j.otel", "io.bull4j.spring"), d.exports().stream().map(e -> e.source() + (e.isQualified() ? " to "
                + e.targets() : "")).sorted().collect(Collectors.toList()));
        assertTrue(d.opens().isEmpty(), "opens nothing: " + d.opens());
        assertTrue(d.requires().stream().anyMatch(r -> r.name().equals("micrometer.core")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)), "Micrometer is optional: "
                + d.requires());
        for (String otel : List.of("io.opentelemetry.api", "io.opentelemetry.context")) {
            assertTrue(d.requires().stream().anyMatch(r -> r.name().equals(otel)
                    && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)), "OpenTelemetry is optional: "
                    + otel + " in " + d.requires());
        }
        for (String spring : List.of("spring.core", "spring.beans", "spring.context", "spring.boot",
                "spring.boot.autoconfigure", "spring.boot.health")) {
            assertTrue(d.requires().stream().anyMatch(r -> r.name().equals(spring)
                    && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)), "Spring is optional: "
                    + spring + " in " + d.requires());
        }
        assertTrue(d.packages().stream().anyMatch(p -> p.startsWith("io.bull4j.internal")), d.packages().toString());
    }

    @Test
    void runsOnTheModulePathWithOnlyItsRuntimeDependencies() throws Exception {
        Path runtimeFile = Path.of("target", "runtime-classpath.txt");
        assertTrue(Files.isRegularFile(runtimeFile), runtimeFile + " is written by the build (maven-dependency-plugin)");
        String runtime = Files.readString(runtimeFile).trim();
        assertFalse(runtime.contains("micrometer"), "Micrometer is optional, not a dependency of bull4j: " + runtime);
        assertFalse(runtime.contains("opentelemetry"), "OpenTelemetry is optional, not a dependency of bull4j: "
                + runtime);
        assertFalse(runtime.contains("springframework"), "Spring is optional, not a dependency of bull4j: " + runtime);
        assertFalse(runtime.contains("netty-transport-native-epoll") || runtime.contains("netty-transport-classes-epoll"),
                "epoll is the application's choice, not a dependency of bull4j: " + runtime);

        String q = queueName("modular");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java,
                "--module-path", CLASSES + File.pathSeparator + runtime,
                "--add-modules", "io.bull4j",
                "-cp", location(ModularConsumerMain.class).toString(),
                ModularConsumerMain.class.getName(), RedisTestServer.get().bull4jUri(), q));
        io.bull4j.support.ProcessRun run = io.bull4j.support.ProcessRun.toEnd(new ProcessBuilder(cmd), 90);
        String out = run.output();
        assertEquals(0, run.exitCode(), out);

        Map<String, String> seen = new HashMap<>();
        for (String line : out.split("\\R")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.contains(" ")) {
                seen.put(line.substring(0, eq), line.substring(eq + 1));
            } else if (line.startsWith("exports=")) {
                seen.put("exports", line.substring("exports=".length()));
            }
        }
        assertEquals("io.bull4j", seen.get("module"), out);
        assertEquals("[io.bull4j, io.bull4j.micrometer, io.bull4j.otel, io.bull4j.spring]", seen.get("exports"), out);
        assertEquals("false", seen.get("otelClass"), "the job ran without OpenTelemetry on any path: " + out);
        assertEquals("false", seen.get("automatic"), out);
        assertEquals("false", seen.get("epollClass"), out);
        assertEquals("false", seen.get("lettuceEpoll"), out);
        assertEquals("{greeted=ana}", seen.get("completed"), out);
    }

    /**
     * The application is a named module itself, as docs/getting-started.md describes ({@code requires io.bull4j;}
     * and its payload package opened to Jackson), started with {@code -m}: then only the modules its graph requires
     * are resolved, not every JDK module as for a class-path main. The connect must work there too (Lettuce's TCP
     * keepalive settings over NIO need module {@code jdk.net}).
     */
    @Test
    void runsFromANamedApplicationModule(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        String runtime = Files.readString(Path.of("target", "runtime-classpath.txt")).trim();
        Path src = dir.resolve("src");
        Path pkg = Files.createDirectories(src.resolve("consumer/app"));
        Files.writeString(src.resolve("module-info.java"), "module consumer.app {\n"
                + "    requires io.bull4j;\n"
                + "    opens consumer.app to com.fasterxml.jackson.databind;\n"
                + "}\n");
        Files.writeString(pkg.resolve("Main.java"), String.join("\n",
                "package consumer.app;",
                "import io.bull4j.*;",
                "import java.time.Duration;",
                "public final class Main {",
                "    public record Greeting(String to) { }",
                "    public static void main(String[] args) throws Exception {",
                "        try (Bull4jConnection redis = Bull4jConnection.create(args[0]);",
                "             Queue queue = new Queue(args[1], QueueOptions.builder().connection(redis).build())) {",
                "            Job job = queue.add(\"greet\", new Greeting(\"ana\"));",
                "            Worker worker = new Worker(args[1], j -> \"hi \" + j.data(Greeting.class).to(),",
                "                    WorkerOptions.builder().connection(redis).build());",
                "            try {",
                "                System.out.println(\"completed=\" + job.waitUntilFinished(Duration.ofSeconds(30))",
                "                        .returnValue(String.class));",
                "            } finally {",
                "                worker.close();",
                "            }",
                "        }",
                "    }",
                "}", ""));
        Path out = Files.createDirectories(dir.resolve("classes"));
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        java.io.StringWriter diagnostics = new java.io.StringWriter();
        boolean compiled = javac.getTask(diagnostics, null, null, List.of("-d", out.toString(), "--module-path",
                        CLASSES + File.pathSeparator + runtime), null,
                javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(
                        src.resolve("module-info.java").toFile(), pkg.resolve("Main.java").toFile())).call();
        assertTrue(compiled, diagnostics.toString());

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        io.bull4j.support.ProcessRun run = io.bull4j.support.ProcessRun.toEnd(new ProcessBuilder(java,
                "--module-path", out + File.pathSeparator + CLASSES + File.pathSeparator + runtime, "-m",
                "consumer.app/consumer.app.Main", RedisTestServer.get().bull4jUri(), queueName("named-module")), 90);
        String text = run.output();
        assertEquals(0, run.exitCode(), text);
        assertTrue(text.contains("completed=hi ana"), text);
    }

    private static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
