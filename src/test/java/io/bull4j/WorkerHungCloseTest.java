package io.bull4j;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 9, defect 7: close() with a processor that never ends (and ignores interruption) returns within its bound,
 * stops renewing that job's lock with a WARN naming the job, and the job is then recovered by the stalled check.
 */
class WorkerHungCloseTest {
    @Test
    void closeWithAHungProcessorReturnsAndLetsTheJobBeRecovered() throws Exception {
        String q = queueName("hung-close");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("hangs", Map.of());
            Worker hung = new Worker(q, j -> {
                started.countDown();
                // ignores interruption, as a processor stuck in uninterruptible I/O would
                while (true) {
                    try {
                        if (release.await(60, TimeUnit.SECONDS)) {
                            return "too late";
                        }
                    } catch (InterruptedException ignored) {
                        // keep hanging
                    }
                }
            }, workerOptions().lockDuration(Duration.ofSeconds(4)).closeTimeout(Duration.ofSeconds(1))
                    .stalledInterval(Duration.ofMillis(500)).build());
            try {
                assertTrue(started.await(15, TimeUnit.SECONDS));
                String log = capturingStderr(() -> {
                    CompletableFuture<Void> closing = CompletableFuture.runAsync(hung::close);
                    // the bound: closeTimeout 1 s + 2 s for the interrupted job + the command timeout, with room
                    closing.get(20, TimeUnit.SECONDS);
                });
                assertTrue(log.contains("WARN") && log.contains("job " + job.id() + " did not end"), log);

                // no longer renewed: the lock expires within lockDuration
                eventually(Duration.ofSeconds(10), () -> redis().exists(key(q, job.id()) + ":lock") == 0,
                        "the lock expires");
                try (Worker rescuer = new Worker(q, j -> "rescued", workerOptions()
                        .stalledInterval(Duration.ofMillis(500)).build())) {
                    eventually(Duration.ofSeconds(20), () -> redis().zscore(key(q, "completed"), job.id()) != null,
                            "the stalled check recovers the job and another worker completes it");
                }
                assertEquals("\"rescued\"", redis().hget(key(q, job.id()), "returnvalue"));
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void closeTimeoutIsValidated() {
        ValidationException e = assertThrows(ValidationException.class,
                () -> WorkerOptions.builder().closeTimeout(Duration.ofSeconds(-1)));
        assertEquals("closeTimeout", e.field());
        assertEquals(WorkerOptions.DEFAULT_CLOSE_TIMEOUT, WorkerOptions.DEFAULTS.closeTimeout());
    }

    interface Action {
        void run() throws Exception;
    }

    /** What slf4j-simple (which writes to the current System.err) logs while the action runs. */
    private static String capturingStderr(Action action) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream tee = new PrintStream(new java.io.OutputStream() {
            @Override
            public synchronized void write(int b) {
                captured.write(b);
                original.write(b);
            }
        }, true, StandardCharsets.UTF_8);
        System.setErr(tee);
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
