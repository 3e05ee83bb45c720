package io.bull4j;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * With one finish call in flight, a worker sends the finishes waiting behind it as a second call once they are half
 * its slots (FinishBatcher), so that Redis has that call to run while the JVM handles the first one's answer.
 * {@code CLIENT PAUSE WRITE} holds the first call in Redis, where {@code CLIENT LIST} shows it (flag b) and, behind
 * it, the bytes of a second call not yet run (qbuf). With the earlier rule (one call at a time below a whole batch)
 * no second call is sent and the test times out waiting for it (checked).
 */
class FinishSecondCallTest {
    private static final int SLOTS = 10;
    /**
     * Each job returns this many characters, which its finish carries: a call of five finishes is then over 5 times
     * that many bytes, far more than anything else the worker may have sent meanwhile (its poll for cancel requests,
     * an MGET of a few keys).
     */
    private static final int VALUE_CHARS = 6_000;

    @Test
    void withOneCallHeldInRedisHalfTheSlotsGoAsASecondCall() throws Exception {
        String q = queueName("fbsecond");
        Map<String, CountDownLatch> release = new ConcurrentHashMap<>();
        for (int i = 1; i <= SLOTS; i++) {
            release.put(Integer.toString(i), new CountDownLatch(1));
        }
        CountDownLatch started = new CountDownLatch(SLOTS);
        Processor held = job -> {
            started.countDown();
            assertTrue(release.get(job.id()).await(30, TimeUnit.SECONDS), "released " + job.id());
            return "x".repeat(VALUE_CHARS) + job.id();
        };
        Set<String> completed = ConcurrentHashMap.newKeySet();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                completed.add(job.id());
            }
        };
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 1; i <= SLOTS; i++) {
                queue.add("j" + i, Map.of());
            }
            // no stalled check or lock renewal while Redis is paused: only finishes go on the connection
            Worker worker = new Worker(q, held, workerOptions().concurrency(SLOTS)
                    .stalledInterval(Duration.ofMinutes(5)).lockDuration(Duration.ofMinutes(2)).build(), listener);
            try {
                assertTrue(started.await(20, TimeUnit.SECONDS), "all running");
                clientPause("WRITE");
                try {
                    release("1", release);
                    eventually(Duration.ofSeconds(10), () -> heldCall() != null, "the first finish held in Redis");
                    assertTrue(queuedBytes(heldCall()) < VALUE_CHARS, "no finish behind the first call yet");
                    // five finishes: half the slots
                    for (int i = 2; i <= 6; i++) {
                        release(Integer.toString(i), release);
                    }
                    // within half the command timeout (10 s): when the first call times out on the client side, the
                    // waiting finishes go anyway, under any rule
                    eventually(Duration.ofSeconds(5), () -> queuedBytes(heldCall()) > 5L * VALUE_CHARS,
                            "a second call, of five finishes, sent behind the first");
                    for (int i = 7; i <= SLOTS; i++) {
                        release(Integer.toString(i), release);
                    }
                } finally {
                    clientUnpause();
                }
                eventually(Duration.ofSeconds(20), () -> completed.size() == SLOTS, "all completed");
                assertEquals(SLOTS, redis().zcard(key(q, "completed")));
                assertEquals(0, redis().llen(key(q, "active")));
            } finally {
                release.values().forEach(CountDownLatch::countDown); // a failed check leaves no processor waiting
                worker.close();
            }
        }
    }

    private static void release(String id, Map<String, CountDownLatch> release) {
        release.get(id).countDown();
    }

    /** The CLIENT LIST line of a client whose script call Redis holds (paused), or null. */
    private static String heldCall() {
        for (String line : redis().clientList().split("\n")) {
            String flags = field(line, "flags");
            String cmd = field(line, "cmd");
            if (flags.contains("b") && (cmd.equals("evalsha") || cmd.equals("eval"))) {
                return line;
            }
        }
        return null;
    }

    /** The bytes a client sent that Redis has not read yet: a command queued behind the held one. */
    private static long queuedBytes(String line) {
        return line == null ? 0 : Long.parseLong(field(line, "qbuf"));
    }

    private static String field(String line, String name) {
        for (String part : line.trim().split(" ")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        return "";
    }

    private static void clientPause(String mode) {
        redis().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("PAUSE").add(20000).add(mode));
    }

    private static void clientUnpause() {
        redis().dispatch(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("UNPAUSE"));
    }
}
