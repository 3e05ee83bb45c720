package io.bull4j;

import io.bull4j.support.ChildJvm;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Every close path is quiet and leaves no thread behind: Queue, Worker and QueueEvents on a connection of their own
 * and on a shared one, Bull4jConnection itself (created by bull4j and on a caller's Lettuce client). The log
 * (slf4j-simple writes to System.err) is captured while each runs; each path runs a few times because the
 * double close it guards against did not warn every time.
 */
class ShutdownQuietTest {
    private static final int ROUNDS = 4;
    /** Threads bull4j, Lettuce and Netty start; anything else (JUnit, the JVM) is not ours to judge. */
    private static final Pattern OURS = Pattern.compile(
            "(?i).*(bull4j|lettuce|netty|epoll|nioEventLoop|eventExecutor|globalEventExecutor).*");

    private static final Pattern LEVEL = Pattern.compile("\\b(WARN|ERROR)\\b");

    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;
    private Set<Thread> before;
    private String uri;

    @BeforeEach
    void capture() {
        uri = RedisTestServer.get().bull4jUri();
        connection(); // the suite's shared connection and its threads exist before the snapshot
        before = liveThreads();
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(originalErr);
    }

    /**
     * A Queue, Worker or QueueEvents given no connection opens its own from {@code REDIS_URL}; the tests may not
     * set this JVM's environment, so these paths run in a child JVM whose REDIS_URL is the test server, and which
     * reports its verdict on stdout.
     */
    @Test
    void queueWorkerAndQueueEventsOnTheirOwnConnections() throws Exception {
        try (ChildJvm child = ChildJvm.start(Map.of("REDIS_URL", uri), OwnConnections.class)) {
            String verdict = child.awaitLine(l -> l.startsWith("verdict "), 120);
            assertEquals("verdict quiet", verdict);
        }
    }

    /** The child JVM of {@link #queueWorkerAndQueueEventsOnTheirOwnConnections()}. */
    public static final class OwnConnections {
        public static void main(String[] args) throws Exception {
            PrintStream out = System.out;
            ShutdownQuietTest check = new ShutdownQuietTest();
            check.uri = System.getenv("REDIS_URL");
            check.before = liveThreads();
            check.originalErr = System.err;
            System.setErr(new PrintStream(check.captured, true, StandardCharsets.UTF_8));
            String verdict;
            try {
                check.ownPaths();
                check.assertQuietAndNoThreadLeft();
                verdict = "quiet";
            } catch (Throwable e) {
                verdict = "noisy " + String.valueOf(e).replace('\n', '|');
            } finally {
                check.restore();
            }
            out.println("verdict " + verdict);
            out.flush();
        }
    }

    private void ownPaths() throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            String q = RedisTestServer.uniqueQueueName("quiet-own");
            CompletableFuture<String> done = new CompletableFuture<>();
            CompletableFuture<QueueEvent> added = new CompletableFuture<>();
            try (QueueEvents events = new QueueEvents(q);
                 Queue queue = new Queue(q);
                 Worker worker = new Worker(q, job -> done.complete(job.id()),
                         WorkerOptions.builder().drainDelay(Duration.ofSeconds(1)).build())) {
                events.addListener(added::complete);
                queue.add("j", Map.of());
                done.get(20, TimeUnit.SECONDS);
                added.get(20, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void everythingOnASharedConnectionThenTheConnection() throws Exception {
        for (int i = 0; i < ROUNDS; i++) {
            String q = queueName("quiet-s");
            CompletableFuture<String> done = new CompletableFuture<>();
            // a reconnect backoff of its own, so that its Lettuce threads are not the ones the suite's connection
            // shares (those stay up with that connection; run alone, this test saw one of them start here)
            try (Bull4jConnection redis = Bull4jConnection.create(uri, ConnectionOptions.builder()
                         .reconnectDelay(Duration.ofMillis(51), Duration.ofSeconds(1)).build());
                 Queue queue = new Queue(q, QueueOptions.builder().connection(redis).build());
                 QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(redis).build());
                 Worker worker = new Worker(q, job -> done.complete(job.id()), WorkerOptions.builder()
                         .connection(redis).drainDelay(Duration.ofSeconds(1)).build())) {
                queue.add("j", Map.of());
                await(done);
            }
        }
        assertQuietAndNoThreadLeft();
    }

    @Test
    void connectionOnTheCallersClientLeavesTheClientToTheCaller() throws Exception {
        RedisClient client = RedisClient.create(uri);
        // configured as bull4j advises (a default client is warned about once per connection: see below)
        client.setOptions(io.lettuce.core.ClientOptions.builder()
                .disconnectedBehavior(io.lettuce.core.ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        try {
            for (int i = 0; i < ROUNDS; i++) {
                String q = queueName("quiet-c");
                CompletableFuture<String> done = new CompletableFuture<>();
                try (Bull4jConnection redis = Bull4jConnection.using(client);
                     Queue queue = new Queue(q, QueueOptions.builder().connection(redis).build());
                     Worker worker = new Worker(q, job -> done.complete(job.id()), WorkerOptions.builder()
                             .connection(redis).drainDelay(Duration.ofSeconds(1)).build())) {
                    queue.add("j", Map.of());
                    await(done);
                }
                assertEquals("PONG", client.connect().sync().ping(), "the caller's client still works");
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        assertQuietAndNoThreadLeft();
    }

    @Test
    void aCallersClientThatWouldSendCommandsAgainAfterAReconnectIsWarnedAbout() {
        RedisClient client = RedisClient.create(uri); // Lettuce's defaults: reconnects, and queues while disconnected
        try (Bull4jConnection redis = Bull4jConnection.using(client)) {
            System.err.flush();
            String log = captured.toString(StandardCharsets.UTF_8);
            assertTrue(log.contains("WARN") && log.contains("REJECT_COMMANDS"), log);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private void assertQuietAndNoThreadLeft() throws InterruptedException {
        // threads end shortly after close returns (Netty's event loops finish their last task): a bounded wait
        try {
            eventually(Duration.ofSeconds(10), () -> leftThreads().isEmpty(), "threads left after close");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + leftThreads());
        }
        System.err.flush();
        String log = captured.toString(StandardCharsets.UTF_8);
        for (String line : log.split("\n")) {
            // slf4j-simple's levels; the JVM's own "WARNING:" lines (JDK 24+ on Netty's Unsafe use) are not ours
            assertFalse(LEVEL.matcher(line).find(), "logged at close: " + line + "\n" + log);
            assertFalse(line.startsWith("\tat ") || line.contains("Exception"), "stack trace at close:\n" + log);
        }
    }

    private List<String> leftThreads() {
        return liveThreads().stream().filter(t -> !before.contains(t) && OURS.matcher(t.getName()).matches())
                .map(Thread::getName).sorted().collect(Collectors.toList());
    }

    private static Set<Thread> liveThreads() {
        Set<Thread> out = Collections.newSetFromMap(new IdentityHashMap<>());
        out.addAll(Thread.getAllStackTraces().keySet());
        return out;
    }
}
