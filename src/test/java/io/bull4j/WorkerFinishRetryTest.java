package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.KillArgs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A worker's finish sent while its command connection is down (killed by CLIENT KILL, not reconnected yet) fails
 * as not applied; it is retried once the connection is back, so the job completes once and is never recovered as
 * stalled. At concurrency 1 the processor's thread waits for the finish's answer and retries; at 40 the finish goes
 * through the batcher and its answer is handled, and the retry made, by whichever processor thread is free.
 */
class WorkerFinishRetryTest {
    private static final Duration WAIT = Duration.ofSeconds(40);

    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {1, 40})
    void aFinishOnAKilledConnectionIsRetriedAndTheJobRunsOnce(int concurrency) throws Exception {
        Set<String> before = clientIds();
        // the reconnect waits 2 s: the finish is certainly sent while the connection is down
        ConnectionOptions slowReconnect = ConnectionOptions.builder()
                .reconnectDelay(Duration.ofSeconds(2), Duration.ofSeconds(2)).build();
        try (Bull4jConnection conn = Bull4jConnection.create(RedisTestServer.get().uri(), slowReconnect)) {
            String q = queueName("finish-retry");
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try (Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                WorkerTestKit.Recorder rec = new WorkerTestKit.Recorder();
                Worker worker = new Worker(q, job -> {
                    if (runs.incrementAndGet() == 1) {
                        started.countDown();
                        assertTrue(release.await(30, TimeUnit.SECONDS), "released");
                    }
                    return "done";
                }, WorkerOptions.builder().connection(conn).concurrency(concurrency).drainDelay(Duration.ofSeconds(1))
                        .lockDuration(Duration.ofSeconds(10)).stalledInterval(Duration.ofSeconds(1)).build());
                worker.addListener(rec);
                try {
                    String id = queue.add("once", Map.of()).id();
                    assertTrue(started.await(20, TimeUnit.SECONDS), "the processor started");

                    // the worker's command connection: this connection's unnamed client (the fetch one is named)
                    List<String> command = commandConnections(before);
                    assertFalse(command.isEmpty(), "found the worker's command connection");
                    for (String client : command) {
                        redis().clientKill(KillArgs.Builder.id(Long.parseLong(client)));
                    }
                    // wait until this side knows it is disconnected: a call is then refused before it is sent
                    eventually(WAIT, () -> refusedAsNotSent(queue), "the worker's connection is seen as down");
                    release.countDown();

                    eventually(WAIT, () -> redis().zscore(key(q, "completed"), id) != null, "job completed");
                    assertEquals(1, runs.get(), "the processor ran once");
                    assertTrue(events(q, "stalled", id).isEmpty(), "no stalled event");
                    assertEquals(1, events(q, "completed", id).size(), "one completed event");
                    assertNull(hash(q, id).get("stc"), "never counted as stalled");
                    assertEquals("\"done\"", hash(q, id).get("returnvalue"));
                    assertEquals(1, rec.calls.stream().filter(c -> c.startsWith("completed:" + id + "@")).count(),
                            rec.calls.toString());
                } finally {
                    release.countDown();
                    worker.close();
                }
            }
        }
    }

    private static boolean refusedAsNotSent(Queue queue) {
        try {
            queue.count();
            return false;
        } catch (RedisNotAppliedException e) {
            return true;
        } catch (RedisException e) {
            return false; // sent on the dead socket before the close was noticed
        }
    }

    private static Set<String> clientIds() {
        return Arrays.stream(redis().clientList().split("\n")).map(field("id"))
                .collect(Collectors.toSet());
    }

    private static List<String> commandConnections(Set<String> before) {
        return Arrays.stream(redis().clientList().split("\n"))
                .filter(l -> !before.contains(field("id").apply(l)) && field("name").apply(l).isEmpty())
                .map(field("id")).collect(Collectors.toList());
    }

    private static java.util.function.Function<String, String> field(String name) {
        return line -> Arrays.stream(line.trim().split(" ")).filter(f -> f.startsWith(name + "="))
                .map(f -> f.substring(name.length() + 1)).findFirst().orElse("");
    }
}
