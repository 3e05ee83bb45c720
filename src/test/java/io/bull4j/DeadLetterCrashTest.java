package io.bull4j;

import io.bull4j.support.ChildJvm;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A worker SIGKILLed while it fails jobs with a dead-letter queue leaves each job's failure and its dead letter both
 * written or neither: after every kill, the source queue's failed set and the dead letters name the same jobs, once
 * each.
 */
class DeadLetterCrashTest {
    private static final int JOBS = 900;

    @Test
    void aKillBetweenFailureAndDeadLetterLeavesBothOrNeither() throws Exception {
        String q = queueName("dlq-crash");
        String dead = q + "-dead";
        try (Queue queue = new Queue(q, queueOptions())) {
            List<BulkJob> jobs = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                jobs.add(BulkJob.of("j", Map.of("i", i)));
            }
            queue.addBulk(jobs);
            long[] killAt = {150, 400, 650};
            for (long threshold : killAt) {
                try (ChildJvm child = ChildJvm.start(DeadLetterWorkerMain.class, RedisTestServer.get().bull4jUri(), q,
                        dead)) {
                    child.awaitLine("READY"::equals, 60);
                    eventually(Duration.ofSeconds(60), () -> redis().zcard("bull:" + q + ":failed") >= threshold,
                            threshold + " failures");
                    child.kill();
                }
                assertBothOrNeither(q, dead, threshold);
            }
        }
    }

    private static void assertBothOrNeither(String q, String dead, long threshold) {
        Set<String> failed = new HashSet<>(redis().zrange("bull:" + q + ":failed", 0, -1));
        List<String> letterIds = redis().lrange("bull:" + dead + ":wait", 0, -1);
        Set<String> lettered = new HashSet<>();
        for (String id : letterIds) {
            DeadLetter record = DeadLetter.parse(redis().hget("bull:" + dead + ":" + id, "deadLetter"));
            assertNotNull(record, "dead letter " + id);
            assertTrue(lettered.add(record.jobId()), "one dead letter per failure: " + record.jobId());
            assertEquals("always fails: " + record.jobId(), record.failedReason());
        }
        assertTrue(failed.size() >= threshold && failed.size() < JOBS, "killed mid-run: " + failed.size());
        assertEquals(failed, lettered, "failed jobs versus dead letters after the kill");
    }
}
