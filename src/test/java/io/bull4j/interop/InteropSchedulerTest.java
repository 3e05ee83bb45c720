package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobScheduler;
import io.bull4j.JobTemplate;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.RepeatOptions;
import io.bull4j.Worker;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.bull4j.interop.InteropKit.JSON;
import static io.bull4j.interop.InteropKit.WAIT;
import static io.bull4j.interop.InteropKit.queueName;
import static io.bull4j.interop.InteropKit.queueOptions;
import static io.bull4j.interop.InteropKit.redis;
import static io.bull4j.interop.InteropKit.workerOptions;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job schedulers across the two sides: a BullMQ scheduler's runs taken by a bull4j worker, which adds the next
 * runs BullMQ then treats as its own, the reverse, and both sides' getJobSchedulers giving the same fields.
 */
class InteropSchedulerTest {
    private static final String SCRIPT = "interop-scheduler.mjs";
    private static final Duration NODE = Duration.ofSeconds(60);
    private static final long HOUR = Duration.ofHours(1).toMillis();

    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    private static List<JsonNode> node(String command, String queue, String... args) {
        List<String> argv = new ArrayList<>(List.of(SCRIPT, command, RedisTestServer.get().uri(), queue));
        argv.addAll(List.of(args));
        return NodeBullmq.run(NODE, argv.toArray(new String[0]));
    }

    private static String key(String q, String suffix) {
        return TestRedis.key(q, suffix);
    }

    private static Set<String> runs(String q, String schedulerId) {
        String prefix = key(q, "");
        return redis().keys(key(q, "repeat:" + schedulerId + ":*")).stream().map(k -> k.substring(prefix.length()))
                .filter(id -> id.chars().filter(c -> c == ':').count() == 2).collect(Collectors.toSet());
    }

    private static JsonNode nodeScheduler(String q, String id) {
        for (JsonNode s : node("schedulers", q).get(0).get("schedulers")) {
            if (s.get("key").asText().equals(id)) {
                return s;
            }
        }
        return null;
    }

    private static void runJavaWorker(String q, int completed) throws Exception {
        Worker worker = new Worker(q, job -> "java", workerOptions().concurrency(1).build());
        try {
            TestRedis.eventually(WAIT, () -> redis().zcard(key(q, "completed")) >= completed,
                    completed + " completed");
        } finally {
            worker.close();
        }
    }

    @Test
    void bullmqSchedulerRunsOnABull4jWorkerAndBullmqTakesOverItsNextRuns() throws Exception {
        String q = queueName("isched-node");
        JsonNode first = node("upsert", q, "n-every", "{\"every\":3600000}",
                "{\"name\":\"beat\",\"data\":{\"from\":\"node\"},\"opts\":{\"attempts\":2}}").get(0);
        String firstId = first.get("id").asText();
        long firstMillis = Long.parseLong(firstId.substring("repeat:n-every:".length()));

        runJavaWorker(q, 1); // bull4j runs BullMQ's first run, and adds the second
        String second = "repeat:n-every:" + (firstMillis + HOUR);
        assertEquals(Set.of(firstId, second), runs(q, "n-every"));
        Map<String, String> h = TestRedis.hash(q, second);
        assertEquals("n-every", h.get("rjk"));
        assertEquals("beat", h.get("name"));
        assertEquals("{\"from\":\"node\"}", h.get("data"));
        JsonNode opts = JSON.readTree(h.get("opts"));
        assertEquals(2, opts.get("attempts").asInt());
        assertEquals(2, opts.get("repeat").get("count").asInt());
        JsonNode seen = nodeScheduler(q, "n-every");
        assertEquals(2, seen.get("iterationCount").asInt(), "BullMQ counts the run bull4j added");
        assertEquals(firstMillis + HOUR, seen.get("next").asLong());

        // BullMQ's worker runs the run bull4j added, and adds the third from it
        try (Queue queue = new Queue(q, queueOptions())) {
            assertEquals(1, queue.promoteJobs());
            List<JsonNode> done = node("process", q, "1");
            assertEquals(second, done.get(0).get("id").asText());
            assertEquals("n-every", done.get(0).get("rjk").asText());
            JobScheduler s = queue.getJobScheduler("n-every");
            assertEquals(3L, s.iterationCount());
            assertEquals(Instant.ofEpochMilli(firstMillis + 2 * HOUR), s.next());
            assertTrue(runs(q, "n-every").contains("repeat:n-every:" + (firstMillis + 2 * HOUR)));
        }
    }

    @Test
    void bullmqCronSchedulerGetsItsNextRunFromBull4jAtCronParsersTime() throws Exception {
        cronSchedulerFromNode("Asia/Kolkata");
    }

    /** cron-parser reads IANA names in any case, and so must a bull4j worker, or the schedule would end. */
    @Test
    void aTimeZoneSpelledInLowerCaseByNodeIsReadByBull4j() throws Exception {
        cronSchedulerFromNode("asia/kolkata");
    }

    private void cronSchedulerFromNode(String tz) throws Exception {
        String q = queueName("isched-node-cron");
        node("upsert", q, "n-cron",
                "{\"pattern\":\"0 30 * * * *\",\"tz\":\"" + tz + "\",\"immediately\":true,\"limit\":5}",
                "{\"name\":\"half\"}");
        runJavaWorker(q, 1);
        JsonNode seen = nodeScheduler(q, "n-cron");
        assertEquals(2, seen.get("iterationCount").asInt());
        long next = seen.get("next").asLong();
        // half past in Kolkata (UTC+5:30) is on the hour in UTC
        assertEquals(0, next % HOUR, "at :30 in Asia/Kolkata: " + Instant.ofEpochMilli(next));
        assertTrue(next > System.currentTimeMillis() - 60_000 && next <= System.currentTimeMillis() + HOUR);
        assertTrue(runs(q, "n-cron").contains("repeat:n-cron:" + next));
        JsonNode opts = JSON.readTree(redis().hget(key(q, "repeat:n-cron:" + next), "opts"));
        assertEquals(next, opts.get("prevMillis").asLong());
        assertEquals(5, opts.get("repeat").get("limit").asInt());
        assertEquals(tz, opts.get("repeat").get("tz").asText(), "stored as Node gave it");
    }

    @Test
    void bull4jSchedulerRunsOnABullmqWorkerAndBull4jTakesOverItsNextRuns() throws Exception {
        String q = queueName("isched-java");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("j-every", RepeatOptions.builder().every(Duration.ofHours(1))
                    .build(), JobTemplate.of("beat", Map.of("from", "java"),
                    JobOptions.builder().removeOnComplete(KeepJobs.count(10)).build()));
            long firstMillis = Long.parseLong(first.id().substring("repeat:j-every:".length()));

            List<JsonNode> done = node("process", q, "1"); // BullMQ runs bull4j's first run, adds the second
            assertEquals(first.id(), done.get(0).get("id").asText());
            assertEquals("java", done.get(0).get("data").get("from").asText());
            String second = "repeat:j-every:" + (firstMillis + HOUR);
            assertTrue(runs(q, "j-every").contains(second), runs(q, "j-every").toString());
            JobScheduler s = queue.getJobScheduler("j-every");
            assertEquals(2L, s.iterationCount());
            assertEquals(Instant.ofEpochMilli(firstMillis + HOUR), s.next());

            assertEquals(1, queue.promoteJobs());
            runJavaWorker(q, 2); // bull4j runs BullMQ's run, and adds the third
            JsonNode seen = nodeScheduler(q, "j-every");
            assertEquals(3, seen.get("iterationCount").asInt());
            assertEquals(firstMillis + 2 * HOUR, seen.get("next").asLong());
            assertEquals("java", JSON.readTree(redis().hget(key(q, "repeat:j-every:" + (firstMillis + 2 * HOUR)),
                    "data")).get("from").asText());
        }
    }

    @Test
    void bull4jCronSchedulerGetsItsNextRunFromBullmqAtTheSameTime() throws Exception {
        String q = queueName("isched-java-cron");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job first = queue.upsertJobScheduler("j-cron", RepeatOptions.builder().cron("0 30 * * * *")
                    .tz(ZoneId.of("Asia/Kolkata")).immediately(true).limit(5).build(), JobTemplate.of("half", null));
            List<JsonNode> done = node("process", q, "1");
            assertEquals(first.id(), done.get(0).get("id").asText());
            JobScheduler s = queue.getJobScheduler("j-cron");
            assertEquals(2L, s.iterationCount());
            long next = s.next().toEpochMilli();
            assertEquals(0, next % HOUR, "BullMQ put it at :30 in Asia/Kolkata: " + s.next());
            long firstMillis = Long.parseLong(first.id().substring("repeat:j-cron:".length()));
            long expected = io.bull4j.internal.cron.CronCursor.nextAfter(
                    io.bull4j.internal.cron.CronPattern.parse("0 30 * * * *"), ZoneId.of("Asia/Kolkata"),
                    firstMillis, null);
            assertTrue(next == expected || next == expected + HOUR, "the next half hour in Kolkata");
            JsonNode opts = JSON.readTree(redis().hget(key(q, "repeat:j-cron:" + next), "opts"));
            assertEquals(2, opts.get("repeat").get("count").asInt());
            assertEquals(next, opts.get("prevMillis").asLong());
        }
    }

    @Test
    void getJobSchedulersGivesTheSameFieldsOnBothSides() throws Exception {
        String q = queueName("isched-list");
        long start = System.currentTimeMillis() + 2 * HOUR;
        long end = System.currentTimeMillis() + 30L * 24 * HOUR;
        try (Queue queue = new Queue(q, queueOptions())) {
            queue.upsertJobScheduler("j1", RepeatOptions.builder().every(Duration.ofMinutes(10))
                    .offset(Duration.ofSeconds(7)).limit(4).build(), JobTemplate.of("a", Map.of("x", List.of(1, 2)),
                    JobOptions.builder().attempts(3).build()));
            queue.upsertJobScheduler("j2", RepeatOptions.builder().cron("15 8 * * mon-fri")
                    .tz(ZoneId.of("America/New_York")).startDate(Instant.ofEpochMilli(start))
                    .endDate(Instant.ofEpochMilli(end)).build(), null);
            node("upsert", q, "n1", "{\"every\":120000,\"startDate\":" + start + "}",
                    "{\"name\":\"b\",\"data\":{\"y\":true},\"opts\":{\"priority\":4}}");
            node("upsert", q, "n2", "{\"pattern\":\"0 0 L * *\",\"tz\":\"Europe/London\",\"limit\":12,\"endDate\":"
                    + end + "}", "{}");

            JsonNode nodeSide = node("schedulers", q).get(0);
            assertEquals(4, nodeSide.get("count").asInt());
            assertEquals(4, queue.getJobSchedulersCount());
            List<JobScheduler> javaSide = queue.getJobSchedulers(0, -1, true);
            assertEquals(4, javaSide.size());
            for (int i = 0; i < 4; i++) {
                assertSame(nodeSide.get("schedulers").get(i), javaSide.get(i));
            }
        }
    }

    /** Every field BullMQ's JobSchedulerJson has, against the Java record. */
    private static void assertSame(JsonNode n, JobScheduler j) {
        String at = "scheduler " + j.id();
        assertEquals(n.get("key").asText(), j.id(), at);
        assertEquals(n.get("name").asText(), j.name(), at);
        assertEquals(n.get("next").asLong(), j.next().toEpochMilli(), at);
        assertEquals(n.path("iterationCount").asLong(), j.iterationCount(), at);
        assertEquals(n.has("limit") ? n.get("limit").asInt() : null, j.limit(), at);
        assertEquals(n.has("startDate") ? Instant.ofEpochMilli(n.get("startDate").asLong()) : null, j.startDate(),
                at);
        assertEquals(n.has("endDate") ? Instant.ofEpochMilli(n.get("endDate").asLong()) : null, j.endDate(), at);
        assertEquals(n.has("tz") ? n.get("tz").asText() : null, j.tz(), at);
        assertEquals(n.has("pattern") ? n.get("pattern").asText() : null, j.pattern(), at);
        assertEquals(n.has("every") ? Duration.ofMillis(n.get("every").asLong()) : null, j.every(), at);
        assertEquals(n.has("offset") ? Duration.ofMillis(n.get("offset").asLong()) : null, j.offset(), at);
        JsonNode template = n.get("template");
        assertEquals(template == null ? null : template.get("data"), j.templateData(), at);
        JsonNode opts = template == null ? null : template.get("opts");
        if (opts == null) {
            assertNull(j.templateOptions(), at);
        } else {
            assertNotNull(j.templateOptions(), at);
            assertEquals(opts.path("attempts").asInt(0), j.templateOptions().attempts(), at);
            assertEquals(opts.path("priority").asInt(0), j.templateOptions().priority(), at);
        }
    }
}
