package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Nothing secret reaches the log at INFO or above: neither the Redis password nor job data, return values or failed
 * reasons, across connect (with a password URI, and with a wrong one), add, process, fail, retry, unreadable data,
 * a stalled job and close. The log (slf4j-simple, on System.err) is captured throughout; the test also checks that
 * the capture saw bull4j's INFO line about the stalled job, so a silent capture cannot pass it.
 */
class LogSecrecyTest {
    private static final Pattern ENTRY = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\[[^\\]]*\\] (\\w+) ");

    private final String password = "pw" + marker();
    private final String data = "data" + marker();
    private final String result = "result" + marker();
    private final String reason = "reason" + marker();
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;

    private static String marker() {
        return "Marker" + UUID.randomUUID().toString().replace("-", "");
    }

    @BeforeEach
    void capture() {
        originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(originalErr);
    }

    @Test
    void noPasswordNorJobDataInTheLogAtInfoOrAbove() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            RedisCommands<String, String> admin = server.sync();
            admin.configSet("requirepass", password);
            String hostPort = server.host() + ":" + server.port();

            String wrong = "wrong" + marker();
            RedisException denied = assertThrows(RedisException.class,
                    () -> Bull4jConnection.create("redis://:" + wrong + "@" + hostPort).close());
            assertFalse(String.valueOf(denied).contains(wrong), "the exception hides the password: " + denied);

            String q = TestSupport.queueName("secrecy");
            Map<String, String> ids = new ConcurrentHashMap<>();
            CountDownLatch finished = new CountDownLatch(4); // ok, boom (after its retry), bad, stalled
            try (Bull4jConnection redis = Bull4jConnection.create("redis://:" + password + "@" + hostPort);
                 Queue queue = new Queue(q, QueueOptions.builder().connection(redis).build());
                 QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(redis).build())) {
                events.addListener(e -> { });
                ids.put("ok", queue.add("ok", Map.of("secret", data)).id());
                ids.put("boom", queue.add("boom", Map.of("secret", data), JobOptions.builder().attempts(2)
                        .backoff(Backoff.fixed(Duration.ofMillis(10))).build()).id());
                String bad = queue.add("bad", Map.of()).id();
                ids.put("bad", bad);
                // unreadable data whose text holds the marker, as a broken producer might store it
                admin.hset("bull:" + q + ":" + bad, "data", "{\"secret\": " + data + "}");
                // a job that looks abandoned by a dead worker: active, no lock
                String stalled = queue.add("stalled", Map.of("secret", data),
                        JobOptions.builder().delay(Duration.ofDays(1)).build()).id();
                ids.put("stalled", stalled);
                admin.zrem("bull:" + q + ":delayed", stalled);
                admin.lpush("bull:" + q + ":active", stalled);

                WorkerListener done = new WorkerListener() {
                    @Override
                    public void onCompleted(Job job, Object value) {
                        finished.countDown();
                    }

                    @Override
                    public void onFailed(Job job, Throwable error) {
                        if (job.attemptsMade() >= job.opts().attempts()) {
                            finished.countDown();
                        }
                    }
                };
                try (Worker worker = new Worker(q, job -> switch (job.name()) {
                    case "boom" -> throw new IllegalStateException(reason);
                    case "bad" -> job.data(Map.class);
                    default -> Map.of("echo", job.data(Map.class).get("secret"), "result", result);
                }, WorkerOptions.builder().connection(redis).drainDelay(Duration.ofSeconds(1))
                        .stalledInterval(Duration.ofMillis(500)).build(), done)) {
                    assertTrue(finished.await(60, TimeUnit.SECONDS), "all four jobs finished");
                }
                assertEquals(JobState.COMPLETED, queue.getJob(ids.get("ok")).getState());
                assertEquals(JobState.FAILED, queue.getJob(ids.get("boom")).getState());
                assertEquals(2, queue.getJob(ids.get("boom")).attemptsMade(), "failed, retried, failed");
                assertEquals(JobState.FAILED, queue.getJob(bad).getState());
                assertEquals(JobState.COMPLETED, queue.getJob(stalled).getState());
                assertTrue(queue.getJob(ids.get("boom")).failedReason().contains(reason), "the reason is stored");
            }
        }

        System.err.flush();
        String log = captured.toString(StandardCharsets.UTF_8);
        List<String> loud = entriesAtInfoOrAbove(log);
        assertTrue(loud.stream().anyMatch(e -> e.contains("stalled")),
                "the capture saw bull4j's INFO line about the stalled job:\n" + log);
        for (String secret : List.of(password, data, result, reason)) {
            for (String entry : loud) {
                assertFalse(entry.contains(secret), "a secret (" + secret.substring(0, 4) + "...) at INFO+:\n" + entry);
            }
        }
    }

    /** Log entries (a line with its stack trace) at INFO, WARN or ERROR. */
    private static List<String> entriesAtInfoOrAbove(String log) {
        List<String> out = new ArrayList<>();
        StringBuilder entry = null;
        boolean loud = false;
        for (String line : log.split("\n")) {
            var m = ENTRY.matcher(line);
            if (m.find()) {
                if (entry != null && loud) {
                    out.add(entry.toString());
                }
                entry = new StringBuilder(line);
                loud = List.of("INFO", "WARN", "ERROR").contains(m.group(1));
            } else if (entry != null) {
                entry.append('\n').append(line);
            } else {
                // output before the first entry (none expected) is judged as loud
                out.add(line);
            }
        }
        if (entry != null && loud) {
            out.add(entry.toString());
        }
        return out;
    }
}
