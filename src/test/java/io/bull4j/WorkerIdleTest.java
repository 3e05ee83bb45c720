package io.bull4j;

import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An idle worker blocks instead of polling. Commands are counted with {@code INFO commandstats} on a server of
 * this test's own, so that nothing else adds to the counts (commands run inside scripts count there too, so only
 * the worker's own calls, BZPOPMIN and EVALSHA/EVAL, are compared). The stalled sweep adds one script call per
 * {@code stalledSweepInterval}.
 */
class WorkerIdleTest {
    @Test
    void idleWorkerMakesOneBlockingCallPerDrainDelay() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated();
             Bull4jConnection conn = Bull4jConnection.create(server.bull4jUri())) {
            String q = queueName("idle");
            Duration drainDelay = Duration.ofSeconds(1);
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                // a far-away delayed job puts a delay marker in place: it must wake the worker once, not keep it busy
                queue.add("later", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(10)).build());
                Duration sweep = Duration.ofSeconds(1);
                Worker worker = new Worker(q, j -> null, WorkerOptions.builder().connection(conn)
                        .drainDelay(drainDelay).stalledSweepInterval(sweep).build());
                try {
                    eventually(Duration.ofSeconds(10), () -> calls(server).getOrDefault("bzpopmin", 0L) >= 1,
                            "first blocking fetch");
                    Map<String, Long> before = calls(server);
                    long start = System.nanoTime();
                    eventually(Duration.ofSeconds(20), () -> calls(server).getOrDefault("bzpopmin", 0L)
                            >= before.get("bzpopmin") + 3, "three more blocking fetches");
                    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
                    Map<String, Long> after = calls(server);

                    long blocking = after.get("bzpopmin") - before.get("bzpopmin");
                    long scripts = delta(before, after, "evalsha") + delta(before, after, "eval");
                    // three waits of drainDelay cannot all end in much less than two drainDelays
                    assertTrue(elapsedMs >= 1_500, blocking + " blocking calls in " + elapsedMs + " ms: busy loop");
                    // besides the wake-ups: the stalled sweep, one script call per sweep interval
                    long sweeps = elapsedMs / sweep.toMillis() + 1;
                    assertTrue(scripts <= blocking + 2 + sweeps,
                            scripts + " script calls for " + blocking + " wake-ups and " + sweeps + " sweeps");
                } finally {
                    worker.close();
                }
            }
        }
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String cmd) {
        return after.getOrDefault(cmd, 0L) - before.getOrDefault(cmd, 0L);
    }

    /** Calls per command since the server started, from INFO commandstats. */
    private static Map<String, Long> calls(RedisTestServer server) {
        Map<String, Long> out = new HashMap<>();
        for (String line : server.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String calls = line.substring(line.indexOf("calls=") + 6, line.indexOf(','));
                out.put(name, Long.parseLong(calls));
            }
        }
        return out;
    }
}
