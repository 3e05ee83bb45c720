package io.bull4j;

import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Without Redis, calls fail with a RedisException within the command timeout instead of hanging. */
class WorkerRedisDownTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @Test
    void connectingToNothingFailsWithinTheTimeout() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String uri = "redis://127.0.0.1:" + port;
        long start = System.nanoTime();
        assertThrows(RedisException.class, () -> Bull4jConnection.create(uri, TIMEOUT));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertTrue(ms < 10_000, "took " + ms + " ms");
    }

    @Test
    void addFailsAndWorkerClosesWhenRedisDiesUnderThem() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri(), TIMEOUT)) {
            String q = queueName("down");
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                assertEquals("1", queue.add("before", Map.of()).id());
                WorkerTestKit.Recorder rec = new WorkerTestKit.Recorder();
                Worker worker = new Worker(q, j -> null, WorkerOptions.builder().connection(conn)
                        .drainDelay(Duration.ofSeconds(1)).build(), rec);
                eventually(Duration.ofSeconds(10), () -> server.sync().zscore("bull:" + q + ":completed", "1") != null,
                        "processed while Redis was up");
                // and the finish's answer in: the worker waits in its next fetch (BZPOPMIN), so that the outage meets
                // the fetch loop, not a finish whose answer it cut off (retried under the lock, not a fetch's WARN)
                eventually(Duration.ofSeconds(10), () -> server.sync().info("clients").contains("blocked_clients:1"),
                        "the worker blocked in its next fetch");

                java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
                java.io.PrintStream err = System.err;
                System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
                server.kill();
                long start = System.nanoTime();
                RedisException e = assertThrows(RedisException.class, () -> queue.add("after", Map.of()));
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(ms < 10_000, "add took " + ms + " ms");
                assertTrue(e instanceof RedisNotAppliedException || e instanceof RedisOutcomeUnknownException,
                        e.toString());

                try {
                    eventually(Duration.ofSeconds(15), () -> rec.errors.size() >= 3, "the worker reports each fault");
                } finally {
                    System.setErr(err);
                }
                // one WARN (with its stack trace) per outage, not one a second per worker
                long warns = captured.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                        .filter(l -> l.contains("WARN") && l.contains("fetch failed on queue " + q)).count();
                assertEquals(1, warns, captured.toString(java.nio.charset.StandardCharsets.UTF_8));
                start = System.nanoTime();
                worker.close();
                ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(ms < 20_000, "close without Redis took " + ms + " ms");
            }
        }
    }
}
