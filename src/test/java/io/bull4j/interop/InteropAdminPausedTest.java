package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The paused state as BullMQ answers it (the legacy {@code paused} list that older BullMQ versions filled while a
 * queue was paused), and a queue opened only to read, which leaves the queue's meta as its producers wrote it.
 */
class InteropAdminPausedTest {

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void pausedCountsAndListingsAreBullmqs() throws Exception {
        String q = queueName("paused-state");
        List<JsonNode> added = ops(q, obj("op", "add", "name", "w1"), obj("op", "add", "name", "old1"),
                obj("op", "add", "name", "old2"));
        String old1 = added.get(1).get("id").asText();
        String old2 = added.get(2).get("id").asText();
        // as an older BullMQ left a paused queue: its waiting jobs parked in the paused list
        redis().lrem(key(q, "wait"), 1, old1);
        redis().lrem(key(q, "wait"), 1, old2);
        redis().lpush(key(q, "paused"), old1, old2);

        JsonNode theirs = op(q, obj("op", "counts", "types", List.of("paused", "waiting", "wait")));
        JsonNode theirList = op(q, obj("op", "getJobs", "types", List.of("paused")));
        JsonNode theirDefault = op(q, obj("op", "counts"));
        try (Queue queue = new Queue(q, queueOptions())) {
            Map<JobState, Long> ours = queue.getJobCounts(JobState.PAUSED, JobState.WAITING);
            assertEquals(theirs.get("paused").asLong(), ours.get(JobState.PAUSED), "getJobCounts('paused')");
            assertEquals(2L, ours.get(JobState.PAUSED));
            assertEquals(theirs.get("waiting").asLong(), ours.get(JobState.WAITING), "getJobCounts('waiting')");
            assertEquals(1L, ours.get(JobState.WAITING));
            assertEquals(InteropWorkerAsserts.ids(theirList), queue.getJobs(JobState.PAUSED).stream().map(Job::id)
                    .toList(), "getJobs('paused'), in bullmq's order");
            Map<String, Long> defaults = new LinkedHashMap<>();
            queue.getJobCounts().forEach((s, n) -> defaults.put(s.wireName(), n));
            Map<String, Long> theirDefaults = new LinkedHashMap<>();
            theirDefault.fields().forEachRemaining(e -> theirDefaults.put(e.getKey(), e.getValue().asLong()));
            assertEquals(theirDefaults, defaults, "getJobCounts() with no state named");
            JsonNode state = op(q, obj("op", "getJob", "id", old1)).get("state");
            assertEquals(state.asText(), queue.getJob(old1).getState().wireName(), "a parked job's state");
            assertEquals(queue.count(), op(q, obj("op", "count")).asLong(), "count()");
        }
    }

    @Test
    void aQueueOpenedToReadLeavesTheMetaAlone() throws Exception {
        String q = queueName("skip-meta");
        op(q, obj("op", "add", "name", "n"));
        assertEquals("bullmq:6.7.0", redis().hget(key(q, "meta"), "version"));
        QueueOptions readOnly = queueOptions().toBuilder().skipMetasUpdate(true).maxLenEvents(5).build();
        try (Queue reader = new Queue(q, readOnly)) {
            assertEquals(1L, reader.getJobCounts(JobState.WAITING).get(JobState.WAITING));
            assertEquals("bullmq:6.7.0", redis().hget(key(q, "meta"), "version"), "version untouched");
            assertEquals("10000", redis().hget(key(q, "meta"), "opts.maxLenEvents"), "stream cap untouched");
        }
        try (Queue producer = new Queue(q, queueOptions())) {
            assertTrue(redis().hget(key(q, "meta"), "version").startsWith("bull4j:"), "a producer writes it");
        }
    }
}
