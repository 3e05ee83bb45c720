package io.bull4j;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A bulk goes to Redis in chunks of {@link JobAdds#BULK_CHUNK}, one after the other: its jobs keep their order
 * across chunks, and once a chunk fails the chunks after it are never sent.
 */
class AddBulkChunksTest {
    private static final int JOBS = JobAdds.BULK_CHUNK * 4;

    private static List<BulkJob> withIds(String prefix) {
        List<BulkJob> jobs = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            jobs.add(BulkJob.of("b", Map.of("i", i), JobOptions.builder().jobId(prefix + i).build()));
        }
        return jobs;
    }

    @Test
    void jobsKeepTheirOrderAcrossChunks() {
        String q = queueName("bulk-order");
        try (Queue queue = new Queue(q, queueOptions())) {
            List<Job> added = queue.addBulk(withIds("j"));
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                expected.add("j" + i);
                assertEquals("j" + i, added.get(i).id());
            }
            List<String> wait = new ArrayList<>(redis().lrange(key(q, "wait"), 0, -1));
            Collections.reverse(wait); // LPUSH: the first job added is the last in the list
            assertEquals(expected, wait);
        }
    }

    @Test
    void aFailedChunkStopsTheChunksAfterIt() {
        String q = queueName("bulk-stop");
        int bad = JobAdds.BULK_CHUNK * 2 + 3; // in the third chunk
        redis().set(key(q, "j" + bad), "not a job hash"); // addJob refuses that chunk before writing anything
        try (Queue queue = new Queue(q, queueOptions())) {
            RedisException e = assertThrows(RedisException.class, () -> queue.addBulk(withIds("j")));
            assertInstanceOf(RedisOutcomeUnknownException.class, e, "the first two chunks were added: " + e);
            for (int i = 0; i < JOBS; i++) {
                boolean kept = i < JobAdds.BULK_CHUNK * 2;
                assertEquals(kept ? 1L : 0L, redis().exists(key(q, "j" + i)) - (i == bad ? 1 : 0),
                        "job j" + i + (kept ? " (chunks before the failed one) is added" : " is not added"));
            }
            assertEquals(JobAdds.BULK_CHUNK * 2L, redis().llen(key(q, "wait")));
        }
    }

    @Test
    void aBulkWhoseFirstChunkFailsAddsNothing() {
        String q = queueName("bulk-first");
        redis().set(key(q, "j1"), "not a job hash");
        try (Queue queue = new Queue(q, queueOptions())) {
            assertThrows(RedisException.class, () -> queue.addBulk(withIds("j")));
            assertEquals(0L, redis().llen(key(q, "wait")));
            assertEquals(0L, redis().exists(key(q, "j" + (JOBS - 1))), "the last chunk was never sent");
        }
    }
}
