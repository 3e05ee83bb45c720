package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Deduplication;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.RateLimit;
import io.bull4j.Worker;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Rate limits, global concurrency and deduplication shared by bullmq 6.7.0 and bull4j on one queue: Node and Java
 * workers together never exceed one limit, settings written by one side are read and obeyed by the other, and a
 * deduplication window opened by one side holds the other's adds.
 */
class InteropLimitsTest {
    /** Client clocks vs the limiter's expiry in Redis: one machine, but a loaded one. */
    private static final long SLACK_MS = 60;

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** The limiter's windows rebuilt from start times (a window opens at the first start after the last closed). */
    private static List<Integer> startsPerWindow(List<Long> starts, long durationMs) {
        List<Long> sorted = new ArrayList<>(starts);
        Collections.sort(sorted);
        List<Integer> counts = new ArrayList<>();
        long windowEnd = 0;
        for (long s : sorted) {
            if (counts.isEmpty() || s >= windowEnd - SLACK_MS) {
                counts.add(0);
                windowEnd = s + durationMs;
            }
            counts.set(counts.size() - 1, counts.get(counts.size() - 1) + 1);
        }
        return counts;
    }

    /** The most intervals [start, end] that overlap at one moment. */
    private static int maxOverlap(List<long[]> intervals) {
        List<long[]> points = new ArrayList<>();
        for (long[] i : intervals) {
            points.add(new long[] {i[0], 1});
            points.add(new long[] {i[1], -1});
        }
        // an end at the same ms as a start is counted first: those two did not overlap
        points.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int now = 0;
        int max = 0;
        for (long[] p : points) {
            now += p[1];
            max = Math.max(max, now);
        }
        return max;
    }

    @Test
    void nodeAndJavaWorkersShareOneRateLimit() throws Exception {
        String q = queueName("ilim-rate");
        int jobs = 12;
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < jobs; i++) {
                queue.add("j", Map.of("i", i));
            }
            Map<String, Object> limiter = obj("max", 2, "duration", 500);
            try (NodeWorker node = startNodeWorker(q, obj("opts", obj("limiter", limiter, "concurrency", 2,
                    "name", "node", "drainDelay", 1), "timeoutMs", 60_000));
                 Worker java = new Worker(q, job -> null, workerOptions().concurrency(2).name("java")
                         .limiter(2, Duration.ofMillis(500)).build())) {
                eventually(() -> redis().zcard(key(q, "completed")) == jobs, "all jobs completed");
            }
            List<Long> starts = new ArrayList<>();
            int byJava = 0;
            for (String id : redis().zrange(key(q, "completed"), 0, -1)) {
                Map<String, String> h = hash(q, id);
                starts.add(Long.parseLong(h.get("processedOn")));
                byJava += "java".equals(h.get("pb")) ? 1 : 0;
            }
            List<Integer> perWindow = startsPerWindow(starts, 500);
            assertTrue(perWindow.stream().allMatch(n -> n <= 2), "at most 2 starts per window: " + perWindow);
            assertTrue(perWindow.size() >= jobs / 2, "12 jobs at 2 per window need 6 windows: " + perWindow);
            assertTrue(byJava > 0 && byJava < jobs, "both sides took jobs (java " + byJava + " of " + jobs + ")");
        }
    }

    @Test
    void aGlobalRateLimitSetByEitherSideIsReadByTheOther() {
        String q = queueName("ilim-global");
        try (Queue queue = new Queue(q, queueOptions())) {
            op(q, obj("op", "setGlobalRateLimit", "max", 3, "duration", 700));
            assertEquals(new RateLimit(3, Duration.ofMillis(700)), queue.getGlobalRateLimit());
            queue.setGlobalRateLimit(5, Duration.ofSeconds(2));
            JsonNode read = op(q, obj("op", "getGlobalRateLimit"));
            assertEquals(5, read.get("max").asInt());
            assertEquals(2000, read.get("duration").asInt());
            queue.setGlobalConcurrency(4);
            assertEquals(4, op(q, obj("op", "getGlobalConcurrency")).asInt());
            op(q, obj("op", "setGlobalConcurrency", "concurrency", 2));
            assertEquals(2, queue.getGlobalConcurrency());
            queue.rateLimit(Duration.ofSeconds(120)); // long: a Node process may take seconds to start on a busy box
            long ttl = op(q, obj("op", "getRateLimitTtl", "maxJobs", 1)).asLong();
            assertTrue(ttl > 60_000 && ttl <= 120_000, "bull4j's manual limit is bullmq's: " + ttl);
        }
    }

    @Test
    void nodeAndJavaWorkersShareOneGlobalConcurrency() throws Exception {
        String q = queueName("ilim-conc");
        // each side may run 2 at once, 4 together, but the cap is 3; a finishing job takes the next one in the same
        // call, so each side keeps the slots it has: local limits of 2 let both sides in
        int jobs = 16;
        ConcurrentLinkedQueue<long[]> javaRuns = new ConcurrentLinkedQueue<>();
        try (Queue queue = new Queue(q, queueOptions())) {
            op(q, obj("op", "setGlobalConcurrency", "concurrency", 3)); // set by bullmq, obeyed by both
            for (int i = 0; i < jobs; i++) {
                queue.add("j", Map.of("i", i));
            }
            CountDownLatch never = new CountDownLatch(1);
            List<JsonNode> nodeEnds;
            try (NodeWorker node = startNodeWorker(q, obj("opts", obj("concurrency", 2, "name", "node",
                    "drainDelay", 1), "workMs", 120, "timeoutMs", 60_000))) {
                try (Worker java = new Worker(q, job -> {
                    long start = System.currentTimeMillis();
                    never.await(120, TimeUnit.MILLISECONDS); // the work: the job holds its slot this long
                    javaRuns.add(new long[] {start, System.currentTimeMillis()});
                    return null;
                }, workerOptions().concurrency(2).name("java").build())) {
                    eventually(() -> redis().zcard(key(q, "completed")) == jobs, "all jobs completed");
                }
                nodeEnds = node.awaitCount("end", jobs - javaRuns.size());
                List<JsonNode> nodeStarts = node.awaitCount("start", jobs - javaRuns.size());
                List<long[]> runs = new ArrayList<>(javaRuns);
                for (JsonNode s : nodeStarts) {
                    String id = s.get("job").get("id").asText();
                    long end = nodeEnds.stream().filter(e -> id.equals(e.get("id").asText())).findFirst()
                            .orElseThrow().get("at").asLong();
                    runs.add(new long[] {s.get("at").asLong(), end});
                }
                assertEquals(jobs, runs.size());
                assertTrue(maxOverlap(runs) <= 3, "never more than 3 jobs at once, was " + maxOverlap(runs));
                assertTrue(!javaRuns.isEmpty() && javaRuns.size() < jobs,
                        "both sides took jobs (java " + javaRuns.size() + ")");
            }
        }
    }

    @Test
    void aDeduplicationWindowOpenedByNodeHoldsJavaAddsAndTheReverse() {
        String q = queueName("ilim-dedup");
        try (Queue queue = new Queue(q, queueOptions())) {
            JsonNode nodeJob = op(q, obj("op", "add", "name", "n", "data", obj("by", "node"),
                    "opts", obj("deduplication", obj("id", "from-node", "ttl", 30_000))));
            String nodeId = nodeJob.get("id").asText();
            Job fromJava = queue.add("j", Map.of("by", "java"), JobOptions.builder()
                    .deduplication(Deduplication.builder("from-node").ttl(Duration.ofSeconds(30)).build()).build());
            assertEquals(nodeId, fromJava.id(), "bull4j's add is deduplicated against bullmq's job");
            assertEquals("from-node", fromJava.deduplicationId());
            assertEquals(Duration.ofSeconds(30), fromJava.opts().deduplication().ttl(), "bullmq's options read back");
            assertEquals(nodeId, queue.getDeduplicationJobId("from-node"));

            Job javaOwner = queue.add("j", Map.of(), JobOptions.builder()
                    .deduplication(Deduplication.builder("from-java").extend(true).ttl(Duration.ofSeconds(20))
                            .build()).build());
            JsonNode again = op(q, obj("op", "add", "name", "n", "data", obj(),
                    "opts", obj("deduplication", obj("id", "from-java", "ttl", 20_000, "extend", true))));
            assertEquals(javaOwner.id(), again.get("id").asText(), "bullmq's add is deduplicated against bull4j's");
            assertEquals(javaOwner.id(), op(q, obj("op", "getDeduplicationJobId", "id", "from-java")).asText());
            JsonNode seenByNode = op(q, obj("op", "getJob", "id", javaOwner.id()));
            assertEquals("from-java", seenByNode.get("opts").get("deduplication").get("id").asText());
            assertTrue(seenByNode.get("opts").get("deduplication").get("extend").asBoolean());
            assertEquals(2, events(q, "deduplicated", null).size());
            assertEquals(1, op(q, obj("op", "removeDeduplicationKey", "id", "from-java")).asInt());
            assertNull(queue.getDeduplicationJobId("from-java"));
        }
    }

    @Test
    void keepLastIfActiveStoredByNodeIsCreatedWhenJavaFinishesTheOwner() throws Exception {
        String q = queueName("ilim-keeplast");
        Map<String, Object> dedup = obj("deduplication", obj("id", "kl", "keepLastIfActive", true));
        try (Queue queue = new Queue(q, queueOptions())) {
            String ownerId = op(q, obj("op", "add", "name", "n", "data", obj("v", 1), "opts", dedup))
                    .get("id").asText();
            CompletableFuture<Job> running = new CompletableFuture<>();
            CountDownLatch release = new CountDownLatch(1);
            ConcurrentLinkedQueue<String> ran = new ConcurrentLinkedQueue<>();
            try (Worker java = new Worker(q, job -> {
                ran.add(job.dataJson());
                if (job.id().equals(ownerId)) {
                    running.complete(job);
                    release.await(20, TimeUnit.SECONDS);
                }
                return null;
            }, workerOptions().concurrency(2).build())) {
                await(running);
                op(q, obj("op", "add", "name", "n", "data", obj("v", 2), "opts", dedup));
                JsonNode latest = op(q, obj("op", "add", "name", "n", "data", obj("v", 3), "opts", dedup));
                assertEquals(ownerId, latest.get("id").asText());
                assertEquals("{\"v\":3}", redis().hget(key(q, "dn:kl"), "data"), "bullmq kept its latest add");
                release.countDown();
                eventually(() -> redis().zcard(key(q, "completed")) == 2, "owner and the kept add completed");
            } finally {
                release.countDown();
            }
            assertEquals(List.of("{\"v\":1}", "{\"v\":3}"), new ArrayList<>(ran), "in turn, the latest data");
        }
    }

    @Test
    void aJobJavaGaveBackForTheLimitIsRunByNodeOnceTheWindowEnds() throws Exception {
        String q = queueName("ilim-ratelimit-error");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            CompletableFuture<Job> taken = new CompletableFuture<>();
            CompletableFuture<Long> limitedAt = new CompletableFuture<>();
            Worker[] self = new Worker[1];
            CountDownLatch nodeReady = new CountDownLatch(1);
            try (Worker java = new Worker(q, j -> {
                taken.complete(j);
                nodeReady.await(60, TimeUnit.SECONDS); // the Node worker is up and waiting on the marker
                self[0].pause(); // take nothing more: the job is for the Node worker now
                long at = System.currentTimeMillis();
                queue.rateLimit(Duration.ofMillis(1500));
                limitedAt.complete(at);
                throw new io.bull4j.RateLimitException();
            }, workerOptions().limiter(10, Duration.ofSeconds(1)).autorun(false).build())) {
                self[0] = java;
                java.run();
                await(taken);
                try (NodeWorker node = startNodeWorker(q, obj("opts", obj("limiter", obj("max", 10,
                        "duration", 1000), "drainDelay", 1), "maxStarts", 1, "timeoutMs", 60_000))) {
                    nodeReady.countDown();
                    long at = await(limitedAt);
                    JsonNode start = node.await("start", job.id());
                    assertTrue(start.get("at").asLong() - at >= 1500 - SLACK_MS,
                            "bullmq waited out bull4j's limit: " + (start.get("at").asLong() - at) + " ms");
                    assertEquals(0, start.get("job").get("attemptsMade").asInt(),
                            "the given-back run spent no attempt");
                    assertEquals(2, start.get("job").get("attemptsStarted").asInt());
                    node.await("completed", job.id());
                }
            }
        }
    }

    @Test
    void aJobNodeGaveBackForTheLimitIsRunByJavaOnceTheWindowEnds() throws Exception {
        String q = queueName("ilim-ratelimit-node");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            long threwAt;
            try (NodeWorker node = startNodeWorker(q, obj("opts", obj("limiter", obj("max", 10, "duration", 1000),
                    "drainDelay", 1), "rateLimitOnce", obj("ms", 3000), "timeoutMs", 60_000))) {
                threwAt = node.await("threw", job.id()).get("at").asLong();
                eventually(() -> redis().lrange(key(q, "wait"), 0, -1).contains(job.id()), "back in wait");
            }
            CompletableFuture<Long> startedAt = new CompletableFuture<>();
            try (Worker java = new Worker(q, j -> startedAt.complete(System.currentTimeMillis()),
                    workerOptions().limiter(10, Duration.ofSeconds(1)).build())) {
                long at = await(startedAt);
                // the limit (3 s) outlasts closing Node and starting this worker, so the wait seen is the limit's
                assertTrue(at - threwAt >= 3000 - SLACK_MS, "bull4j waited out bullmq's limit: " + (at - threwAt));
                eventually(() -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
            }
            assertEquals("1", hash(q, job.id()).get("atm"), "one attempt spent in all");
            assertEquals("2", hash(q, job.id()).get("ats"));
        }
    }
}
