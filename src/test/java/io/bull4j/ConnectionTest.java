package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** The connection layer: URIs with database, password and ACL user; sharing; closing only what bull4j opened. */
class ConnectionTest {
    @Test
    void aMissingUriIsRefusedNamingIt() {
        for (String uri : new String[] {null, " "}) {
            ValidationException e = assertThrows(ValidationException.class, () -> Bull4jConnection.create(uri));
            assertEquals("uri", e.field());
        }
    }

    /**
     * A server that accepts the connection and never answers (a Redis frozen by SIGSTOP, a half-open proxy): the
     * handshake is bounded by the command timeout, not Lettuce's 60 s default, and fails as a typed error.
     */
    @Test
    void aServerThatNeverAnswersTheHandshakeFailsWithinTheCommandTimeout() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            java.util.List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept()); // accepted, never read nor answered
                    }
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            long t0 = System.nanoTime();
            assertThrows(RedisException.class, () -> Bull4jConnection.create("redis://127.0.0.1:"
                    + silent.getLocalPort(), java.time.Duration.ofSeconds(1)).close());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 30_000, "gave up after " + ms + " ms: Lettuce's own 60 s handshake bound");
            for (java.net.Socket s : held) {
                s.close();
            }
        }
    }

    /**
     * Connections bull4j opens share one set of Lettuce resources (event loops, timer) per reconnect backoff: each
     * had its own, so 100 Queues and Workers built without a shared connection ran 351 threads, and Netty logged an
     * ERROR about too many timers. The last one closed shuts them down. (A backoff no other test uses, so that the
     * count is this test's own.)
     */
    @Test
    void connectionsOfOurOwnShareOneTimerAndTheLastCloseEndsIt() throws Exception {
        String uri = RedisTestServer.get().bull4jUri();
        ConnectionOptions options = ConnectionOptions.builder()
                .reconnectDelay(java.time.Duration.ofMillis(77), java.time.Duration.ofMillis(777)).build();
        long before = liveThreads("lettuce-timer");
        java.util.List<Bull4jConnection> open = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                open.add(Bull4jConnection.create(uri, options));
            }
            assertEquals(before + 1, liveThreads("lettuce-timer"), "one timer for the ten");
            open.remove(0).close();
            assertEquals("PONG", open.get(0).link().commands().ping().get(5, java.util.concurrent.TimeUnit.SECONDS),
                    "the others still work after one closed");
        } finally {
            open.forEach(Bull4jConnection::close);
        }
        eventually(java.time.Duration.ofSeconds(10), () -> liveThreads("lettuce-timer") == before, "the timer ends");
    }

    private static long liveThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .count();
    }

    @Test
    void uriSelectsTheDatabase() {
        RedisTestServer server = RedisTestServer.get();
        String q = queueName("db");
        try (Bull4jConnection db3 = Bull4jConnection.create(server.bull4jUri() + "/3");
             Queue queue = new Queue(q, QueueOptions.builder().connection(db3).build())) {
            queue.add("x", Map.of());
        }
        RedisClient client = RedisClient.create(server.uri() + "/3");
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            assertEquals(1, c.sync().llen("bull:" + q + ":wait"));
            c.sync().del("bull:" + q + ":wait", "bull:" + q + ":1", "bull:" + q + ":id", "bull:" + q + ":meta",
                    "bull:" + q + ":events", "bull:" + q + ":marker");
        } finally {
            client.shutdown();
        }
        assertEquals(0, redis().exists("bull:" + q + ":wait"), "nothing landed in db 0");
    }

    @Test
    void passwordAndAclUserFromUri() {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            server.sync().aclSetuser("app", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("app-pw")
                    .allKeys().allCommands());
            server.sync().configSet("requirepass", "s3cret");
            String hostPort = server.host() + ":" + server.port();

            try (Bull4jConnection viaPassword = Bull4jConnection.create("redis://:s3cret@" + hostPort);
                 Bull4jConnection viaAcl = Bull4jConnection.create("redis://app:app-pw@" + hostPort)) {
                assertFalse(viaPassword.serverVersion().isEmpty());
                try (Queue queue = new Queue("pw", QueueOptions.builder().connection(viaAcl).build())) {
                    assertEquals("1", queue.add("x", Map.of()).id());
                }
            }
            RedisException denied = assertThrows(RedisException.class,
                    () -> Bull4jConnection.create("redis://app:wrong@" + hostPort).close());
            assertFalse(denied.isTimeout());
        }
    }

    @Test
    void closingAConnectionLeavesTheCallersClientOpen() {
        RedisClient client = RedisClient.create(RedisTestServer.get().uri());
        try {
            try (Bull4jConnection shared = Bull4jConnection.using(client);
                 Queue queue = new Queue(queueName("owned"), QueueOptions.builder().connection(shared).build())) {
                queue.add("x", Map.of());
            }
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                assertEquals("PONG", c.sync().ping(), "the caller's client still works");
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void oneConnectionServesManyQueuesAndWorkersAndOutlivesThem() throws Exception {
        Bull4jConnection shared = connection();
        String q1 = queueName("shared1");
        String q2 = queueName("shared2");
        CompletableFuture<Object> r1 = new CompletableFuture<>();
        CompletableFuture<Object> r2 = new CompletableFuture<>();
        try (Queue a = new Queue(q1, queueOptions()); Queue b = new Queue(q2, queueOptions())) {
            Worker w1 = new Worker(q1, j -> "one", workerOptions().build()).addListener(completion(r1));
            Worker w2 = new Worker(q2, j -> "two", workerOptions().build()).addListener(completion(r2));
            try {
                a.add("x", Map.of());
                b.add("x", Map.of());
                assertEquals("one", await(r1));
                assertEquals("two", await(r2));
            } finally {
                w1.close();
                w2.close();
            }
        }
        // queues and workers given a connection do not close it
        try (Queue again = new Queue(queueName("shared3"), QueueOptions.builder().connection(shared).build())) {
            assertEquals("1", again.add("x", Map.of()).id());
        }
    }

    @Test
    void embeddedRunIsOnTheOldestSupportedRedis() {
        String version = connection().serverVersion();
        if ("embedded".equalsIgnoreCase(System.getenv("BULL4J_TEST_REDIS"))) {
            assertTrue(version.startsWith("6.2."), "the embedded binary is Redis 6.2, got " + version);
        } else {
            assertTrue(version.compareTo(io.bull4j.internal.redis.RedisVersion.MINIMUM) >= 0, version);
        }
    }

    @Test
    void unsupportedServerVersionIsRefusedClearly() {
        Bull4jException e = assertThrows(Bull4jException.class,
                () -> io.bull4j.internal.redis.RedisVersion.requireSupported("6.0.9"));
        assertTrue(e.getMessage().contains("6.2.0"), e.getMessage());
        io.bull4j.internal.redis.RedisVersion.requireSupported("7.0.15");
        io.bull4j.internal.redis.RedisVersion.requireSupported("6.2.0");
    }

    private static WorkerListener completion(CompletableFuture<Object> f) {
        return new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                f.complete(result);
            }
        };
    }
}
