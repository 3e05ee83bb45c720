package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * bull-board, the dashboard made for BullMQ, run unchanged (npm {@code @bull-board/api} + {@code /express} over
 * bullmq 6.7.0 queues) on queues that only bull4j wrote: what it shows through its JSON API must be what bull4j
 * says, and what it does (retry, promote, resume) must be what bull4j then sees. The board validates its own
 * answers against its schema (board.mjs), so a field stored in the wrong shape is a 500 here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BullBoardTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<JobState> LISTED = List.of(JobState.WAITING, JobState.PRIORITIZED, JobState.DELAYED,
            JobState.ACTIVE, JobState.COMPLETED, JobState.FAILED, JobState.WAITING_CHILDREN);

    private BoardFixture f;
    private BoardClient board;

    @BeforeAll
    void start() throws Exception {
        NodeBullmq.assumeAvailable();
        f = new BoardFixture().fill();
        board = BoardClient.start(RedisTestServer.get().uri(), f.name, f.pausedName);
    }

    @AfterAll
    void stop() {
        try {
            if (board != null) {
                board.close();
            }
        } finally {
            if (f != null) {
                f.close();
            }
        }
    }

    @Test
    @Order(1)
    void countsPerStateAreBull4jCounts() {
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("active", 1L);
        expected.put("completed", 1L);
        expected.put("delayed", 1L);
        expected.put("failed", 1L);
        expected.put("prioritized", 1L);
        expected.put("waiting", 2L);
        expected.put("waiting-children", 0L);
        assertEquals(expected, bull4jCounts(f.queue));
        assertEquals(expected, boardCounts(board.queue(f.name, "latest")));
        assertEquals(bull4jCounts(f.pausedQueue), boardCounts(board.queue(f.pausedName, "latest")));
        assertEquals(1L, bull4jCounts(f.pausedQueue).get("waiting"));
    }

    @Test
    @Order(2)
    void eachStateListsTheJobsBull4jLists() {
        for (JobState state : LISTED) {
            List<String> boardIds = new ArrayList<>();
            board.queue(f.name, state.wireName()).get("jobs").forEach(j -> boardIds.add(j.get("id").asText()));
            List<String> ours = f.queue.getJobs(Set.of(state), 0, 49, false).stream().map(Job::id).toList();
            assertEquals(ours, boardIds, "jobs listed as " + state.wireName());
        }
        assertEquals(List.of(f.waitingIds.get(1), f.waitingIds.get(0)), ids(board.queue(f.name, "waiting")),
                "newest first, as BullMQ lists wait");
    }

    @Test
    @Order(3)
    void completedJobShowsReturnValueProgressAndLogs() throws Exception {
        JsonNode job = detail(f.completedId, JobState.COMPLETED);
        assertEquals(tree("{\"sent\":true,\"messageId\":\"m-1\"}"), job.get("returnValue"));
        assertEquals(tree("{\"step\":\"sent\",\"pct\":100}"), job.get("progress"));
        assertEquals(tree("{\"attempts\":0,\"keepLogs\":10}"), job.get("opts"), "kl is shown as keepLogs");
        assertEquals(1, job.path("attempts").asInt());
        assertFalse(flag(job, "isFailed"));
        assertEquals(tree("[\"rendered template\",\"handed to smtp\"]"), board.logs(f.name, f.completedId));
    }

    @Test
    @Order(4)
    void failedJobShowsReasonAndStacktraces() throws Exception {
        JsonNode job = detail(f.failedId, JobState.FAILED);
        assertEquals("smtp refused on attempt 2", job.path("failedReason").asText());
        assertEquals(2, job.path("attempts").asInt());
        assertTrue(flag(job, "isFailed"));
        assertEquals(tree("{\"attempts\":2}"), job.get("opts"));
        JsonNode traces = job.get("stacktrace");
        assertEquals(2, traces.size(), "one trace per attempt: " + traces);
        // the board shows the latest attempt first
        assertTrue(traces.get(0).asText().startsWith("java.lang.IllegalStateException: smtp refused on attempt 2"),
                traces.get(0).asText());
        assertTrue(traces.get(1).asText().contains("smtp refused on attempt 1"), traces.get(1).asText());
    }

    @Test
    @Order(5)
    void activeJobShowsItsWorkerAndStart() throws Exception {
        JsonNode job = detail(f.activeId, JobState.ACTIVE);
        assertTrue(job.path("processedOn").asLong() > 0);
        assertNull(job.get("finishedOn"));
        assertEquals(BoardFixture.WORKER_NAME, text(job, "processedBy"));
        assertEquals(1, job.path("attemptsStarted").asInt(), "started once, finished never");
    }

    @Test
    @Order(6)
    void waitingPrioritizedAndDelayedJobsShowTheirOptions() throws Exception {
        for (String id : f.waitingIds) {
            assertEquals(tree("{\"attempts\":0}"), detail(id, JobState.WAITING).get("opts"));
        }
        JsonNode urgent = detail(f.prioritizedId, JobState.PRIORITIZED);
        assertEquals(5, urgent.path("priority").asInt());
        assertEquals(tree("{\"attempts\":0,\"priority\":5}"), urgent.get("opts"));
        JsonNode later = detail(f.delayedId, JobState.DELAYED);
        assertEquals(BoardFixture.DELAY.toMillis(), later.path("delay").asLong());
        assertEquals(tree("{\"attempts\":0,\"delay\":" + BoardFixture.DELAY.toMillis() + "}"), later.get("opts"));
        assertEquals(tree("[\"x\",2,true]"), later.get("data"));
    }

    @Test
    @Order(7)
    void pausedQueueShowsPausedAndBoardResumeIsSeenByBull4j() {
        assertFalse(isPaused(board.queue(f.name, "latest")));
        assertTrue(f.pausedQueue.isPaused());
        assertTrue(isPaused(board.queue(f.pausedName, "latest")));
        assertEquals(List.of(f.parkedId), ids(board.queue(f.pausedName, "waiting")), "paused jobs stay in wait");

        assertEquals(200, board.put("/api/queues/" + BoardClient.enc(f.pausedName) + "/resume"));
        assertFalse(f.pausedQueue.isPaused());
        assertFalse(isPaused(board.queue(f.pausedName, "latest")));
    }

    @Test
    @Order(8)
    void boardRetryAndPromoteAreSeenByBull4j() throws Exception {
        String q = "/api/queues/" + BoardClient.enc(f.name) + "/";
        assertEquals(204, board.put(q + BoardClient.enc(f.failedId) + "/retry"));
        Job retried = f.queue.getJob(f.failedId);
        assertEquals(JobState.WAITING, retried.getState(), "the worker is busy, so the retried job waits");
        assertNull(retried.failedReason());
        assertNull(retried.finishedOn());

        assertEquals(204, board.put(q + BoardClient.enc(f.delayedId) + "/promote"));
        Job promoted = f.queue.getJob(f.delayedId);
        assertEquals(JobState.WAITING, promoted.getState());
        assertEquals(0, promoted.delay().toMillis());

        Map<String, Long> counts = bull4jCounts(f.queue);
        assertEquals(4L, counts.get("waiting"));
        assertEquals(0L, counts.get("failed"));
        assertEquals(0L, counts.get("delayed"));
        assertEquals(counts, boardCounts(board.queue(f.name, "latest")));
        assertEquals(List.of(f.delayedId, f.failedId, f.waitingIds.get(1), f.waitingIds.get(0)),
                ids(board.queue(f.name, "waiting")));
    }

    // ---- helpers ----

    /**
     * The board's job detail, checked field by field against what bull4j reads from the same job: the fields
     * every job has, whatever its state.
     */
    private JsonNode detail(String id, JobState state) throws Exception {
        JsonNode answer = board.job(f.name, id);
        assertEquals(state.wireName(), answer.get("status").asText(), "state of job " + id);
        JsonNode job = answer.get("job");
        Job ours = f.queue.getJob(id);
        assertEquals(id, job.path("id").asText());
        assertEquals(ours.name(), job.path("name").asText());
        assertEquals(tree(ours.dataJson()), job.get("data"));
        assertEquals(ours.timestamp().toEpochMilli(), job.path("timestamp").asLong());
        assertEquals(millis(ours.processedOn()), job.has("processedOn") ? job.path("processedOn").asLong() : null);
        assertEquals(millis(ours.finishedOn()), job.has("finishedOn") ? job.path("finishedOn").asLong() : null);
        assertEquals(ours.attemptsMade(), job.path("attempts").asInt());
        assertEquals(ours.delay().toMillis(), job.path("delay").asLong());
        assertEquals(ours.priority() > 0 ? ours.priority() : null,
                job.has("priority") ? job.path("priority").asInt() : null);
        assertEquals(ours.failedReason(), text(job, "failedReason"));
        List<String> traces = new ArrayList<>(ours.stacktrace());
        Collections.reverse(traces); // newest first on the board
        assertEquals(JSON.valueToTree(traces), job.get("stacktrace"));
        assertEquals(JSON.valueToTree(ours.progress()), job.get("progress"));
        assertEquals(ours.returnValueJson() == null ? tree("null") : tree(ours.returnValueJson()),
                job.get("returnValue"));
        return job;
    }

    private static boolean isPaused(JsonNode queueView) {
        return flag(queueView, "isPaused");
    }

    /** A boolean field that must be there (a missing one must not read as false). */
    private static boolean flag(JsonNode node, String field) {
        assertTrue(node.path(field).isBoolean(), field + " missing or not a boolean in " + node);
        return node.get(field).asBoolean();
    }

    /** A text field, or null when the board left it out (as it does with undefined values). */
    private static String text(JsonNode node, String field) {
        return node.hasNonNull(field) ? node.get(field).asText() : null;
    }

    private static Long millis(java.time.Instant at) {
        return at == null ? null : at.toEpochMilli();
    }

    private static Map<String, Long> bull4jCounts(io.bull4j.Queue queue) {
        Map<String, Long> out = new LinkedHashMap<>();
        queue.getJobCounts().forEach((state, n) -> out.put(state.wireName(), n));
        return out;
    }

    private static Map<String, Long> boardCounts(JsonNode queueView) {
        Map<String, Long> out = new LinkedHashMap<>();
        queueView.get("counts").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asLong()));
        return out;
    }

    private static List<String> ids(JsonNode queueView) {
        List<String> out = new ArrayList<>();
        queueView.get("jobs").forEach(j -> out.add(j.get("id").asText()));
        return out;
    }

    private static JsonNode tree(String json) throws Exception {
        return JSON.readTree(json);
    }
}
