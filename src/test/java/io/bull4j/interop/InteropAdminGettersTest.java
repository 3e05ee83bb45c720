package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobLogs;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueMeta;
import io.bull4j.Worker;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static io.bull4j.interop.InteropKit.*;
import static io.bull4j.interop.ObservabilityKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The admin getters against bullmq 6.7.0 on one queue: each side's getWorkers lists the other's workers, and
 * getJobLogs, getMeta/getVersion, getCountsPerPriority and trimEvents answer as bullmq's do on the same state.
 */
class InteropAdminGettersTest {
    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> out = new TreeSet<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void eachSideListsTheOthersWorkers() throws Exception {
        // CLIENT LIST is outside the least-privilege ACL of docs/operations.md (BullMQ's getWorkers needs it too)
        org.junit.jupiter.api.Assumptions.assumeFalse(io.bull4j.support.AclUser.enabled(),
                "the ACL user may not run CLIENT LIST");
        String q = queueName("getters-workers");
        String base = "bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8));
        try (Queue queue = new Queue(q, queueOptions());
             NodeProcess nodeWorker = bullmqStart("work", q, Map.of("name", "nw"))) {
            assertTrue(nodeWorker.awaitLine(WAIT).has("ready"));
            Worker javaWorker = new Worker(q, job -> null, workerOptions().name("jw").build());
            Worker javaUnnamed = new Worker(q, job -> null, workerOptions().build());
            try {
                Set<String> both = Set.of(base + ":w:nw", base + ":w:jw", base);
                TestRedis.eventually(WAIT, () -> queue.getWorkersCount() == 3, "three workers listed");
                assertEquals(both, queue.getWorkers().stream().map(w -> w.get("rawname"))
                        .collect(Collectors.toSet()), "bull4j lists bullmq's worker");
                JsonNode seen = bullmq("workers", q, null);
                assertEquals(3, seen.get("count").asInt());
                assertEquals(new TreeSet<>(both), strings(seen.get("rawnames")), "bullmq lists bull4j's workers");
                assertEquals(Set.of(q), strings(seen.get("names")));
                nodeWorker.process().getOutputStream().close(); // the node worker closes when its stdin ends
                assertEquals(0, nodeWorker.waitFor(WAIT));
                TestRedis.eventually(WAIT, () -> queue.getWorkersCount() == 2, "bullmq's worker gone");
                javaUnnamed.close();
                TestRedis.eventually(WAIT, () -> bullmq("workers", q, null).get("count").asInt() == 1,
                        "bullmq sees one worker left");
            } finally {
                javaWorker.close();
                javaUnnamed.close();
            }
        }
    }

    /** As a BullMQ worker is listed: also while it works through a backlog, and while paused. */
    @Test
    void bullmqListsABusyAndAPausedBull4jWorker() throws Exception {
        // CLIENT LIST is outside the least-privilege ACL of docs/operations.md (BullMQ's getWorkers needs it too)
        org.junit.jupiter.api.Assumptions.assumeFalse(io.bull4j.support.AclUser.enabled(),
                "the ACL user may not run CLIENT LIST");
        String q = queueName("getters-busy");
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 started.countDown();
                 release.await();
                 return null;
             }, workerOptions().name("busy").concurrency(1).build())) {
            queue.add("a", Map.of());
            queue.add("b", Map.of()); // a backlog: the worker never waits on the marker
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            TestRedis.eventually(WAIT, () -> bullmq("workers", q, null).get("count").asInt() == 1,
                    "bullmq lists the busy worker");
            String busyId = queue.getWorkers().get(0).get("id");
            worker.pause(); // closes the connection to cut a blocking call, and opens another
            TestRedis.eventually(WAIT, () -> queue.getWorkers().stream().noneMatch(w -> w.get("id").equals(busyId))
                    && queue.getWorkersCount() == 1, "the paused worker listed by its new connection");
            assertEquals(1, bullmq("workers", q, null).get("count").asInt(), "bullmq lists the paused worker");
            release.countDown();
        }
    }

    @Test
    void jobLogsReadTheSameFromBothSides() {
        String q = queueName("getters-logs");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            job.log("from java 0");
            bullmq("addLog", q, Map.of("id", job.id(), "row", "from node 1"));
            job.log("from java 2");
            bullmq("addLog", q, Map.of("id", job.id(), "row", "from node 3"));
            for (Object[] page : new Object[][] {{0, -1, true}, {0, -1, false}, {1, 2, true}, {1, 2, false},
                    {0, 0, false}, {3, 10, true}, {5, 9, false}}) {
                long start = ((Integer) page[0]), end = ((Integer) page[1]);
                boolean asc = (Boolean) page[2];
                JobLogs mine = queue.getJobLogs(job.id(), start, end, asc);
                JsonNode theirs = bullmq("logs", q, Map.of("id", job.id(), "start", start, "end", end, "asc", asc));
                List<String> lines = new ArrayList<>();
                theirs.get("logs").forEach(n -> lines.add(n.asText()));
                assertEquals(new JobLogs(lines, theirs.get("count").asLong()), mine, List.of(page).toString());
            }
            assertEquals(List.of("from node 3", "from java 2"), queue.getJobLogs(job.id(), 0, 1, false).logs());
        }
    }

    @Test
    void metaAndVersionReadWhatTheOtherSideWrote() {
        String q = queueName("getters-meta");
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.pause();
            queue.setGlobalConcurrency(3);
            queue.setGlobalRateLimit(9, Duration.ofMillis(1500));
            JsonNode theirs = bullmq("meta", q, null);
            QueueMeta mine = queue.getMeta();
            JsonNode meta = theirs.get("meta");
            assertTrue(meta.get("paused").asBoolean());
            assertEquals(meta.get("paused").asBoolean(), mine.paused());
            assertEquals(meta.get("concurrency").asInt(), mine.concurrency());
            assertEquals(meta.get("max").asLong(), mine.max());
            assertEquals(meta.get("duration").asLong(), mine.duration().toMillis());
            assertEquals(meta.get("maxLenEvents").asLong(), mine.maxLenEvents());
            assertEquals(theirs.get("version").asText(), mine.version());
            assertTrue(mine.version().startsWith("bull4j:"), mine.version());

            // a bullmq Queue opened on it writes its own version, which bull4j reads
            bullmq("meta", q, Map.of("writeMeta", true));
            assertEquals("bullmq:6.7.0", queue.getVersion());
            assertEquals("bullmq:6.7.0", queue.getMeta().version());
        }
    }

    @Test
    void countsPerPriorityAgree() {
        String q = queueName("getters-priority");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int p : new int[] {0, 3, 3, 8, 0, 0, 1}) {
                queue.add("j", Map.of(), JobOptions.builder().priority(p).build());
            }
            Map<Integer, Long> mine = queue.getCountsPerPriority(0, 1, 3, 8, 9, 3);
            JsonNode theirs = bullmq("priorities", q, Map.of("priorities", List.of(0, 1, 3, 8, 9, 3)));
            assertEquals(mine.size(), theirs.size());
            mine.forEach((p, n) -> assertEquals(theirs.get(Integer.toString(p)).asLong(), n, "priority " + p));
            assertEquals(3L, mine.get(0));
            assertEquals(2L, mine.get(3));
        }
    }

    @Test
    void trimEventsRemovesWhatBullmqsRemovesFromTheSameStream() {
        String mineQ = queueName("getters-trim-java");
        String theirsQ = queueName("getters-trim-node");
        for (String q : List.of(mineQ, theirsQ)) {
            try (Queue queue = new Queue(q, queueOptions())) {
                for (int i = 0; i < 250; i++) {
                    queue.add("j", Map.of());
                }
            }
        }
        long lengthBefore = redis().xlen(key(mineQ, "events"));
        assertEquals(lengthBefore, redis().xlen(key(theirsQ, "events")));
        long removed;
        try (Queue queue = new Queue(mineQ, queueOptions())) {
            removed = queue.trimEvents(20);
        }
        JsonNode theirs = bullmq("trimEvents", theirsQ, Map.of("maxLength", 20));
        assertEquals(theirs.get("result").asLong(), removed);
        assertTrue(removed > 0);
        assertEquals(redis().xlen(key(theirsQ, "events")), redis().xlen(key(mineQ, "events")));
    }
}
