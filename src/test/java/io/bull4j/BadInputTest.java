package io.bull4j;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The catalogue of bad input (docs/reliability.md, "Bad input"): each kind through the public API is refused with a
 * {@link ValidationException} naming the field, and the queue's keys in Redis are exactly as they were; each kind of
 * damaged Redis state gives a {@link JobException} naming the field and the job, and changes nothing. Kinds that need
 * a running worker are asserted where they live ({@link DamagedJobTest}, {@link ReliabilityValidationTest}) and are
 * listed in the docs with them.
 */
class BadInputTest {
    /** Jackson cannot write it: it refers to itself. */
    public static final class Loop {
        public Loop getSelf() {
            return this;
        }
    }

    private static String q;
    private static Queue queue;
    private static Job existing;

    @BeforeAll
    static void queue() {
        q = queueName("badinput");
        queue = new Queue(q, queueOptions());
        existing = queue.add("existing", Map.of("n", 1));
    }

    @AfterAll
    static void close() {
        queue.close();
    }

    private record Kind(String name, String field, Executable call) {
    }

    private static Kind kind(String name, String field, Executable call) {
        return new Kind(name, field, call);
    }

    /** The API catalogue: what a caller may get wrong, and the field the exception must name. */
    private static List<Kind> apiKinds() {
        JobOptions small = JobOptions.builder().sizeLimit(10).build();
        return List.of(
                kind("queue name null", "queueName", () -> new Queue(null, queueOptions())),
                kind("queue name blank", "queueName", () -> new Queue(" ", queueOptions())),
                kind("queue name with ':'", "queueName", () -> new Queue(q + ":x", queueOptions())),
                kind("worker queue name with ':'", "queueName", () -> new Worker(q + ":x", j -> null,
                        workerOptions().build())),
                kind("prefix with ':'", "prefix", () -> QueueOptions.builder().prefix("bull:" + q)),
                kind("prefix blank", "prefix", () -> WorkerOptions.builder().prefix(" ")),
                kind("maxLenEvents negative", "maxLenEvents", () -> QueueOptions.builder().maxLenEvents(-1)),
                kind("job name null", "name", () -> queue.add(null, Map.of())),
                kind("data not serializable", "data", () -> queue.add("loop", new Loop())),
                kind("data not serializable (async)", "data", () -> queue.addAsync("loop", new Loop())),
                kind("data over sizeLimit", "data", () -> queue.add("big", "x".repeat(100), small)),
                kind("one bad job in a bulk", "data", () -> queue.addBulk(List.of(BulkJob.of("ok", Map.of()),
                        BulkJob.of("loop", new Loop())))),
                kind("null job in a bulk", "jobs[1]", () -> queue.addBulk(java.util.Arrays.asList(
                        BulkJob.of("ok", Map.of()), null))),
                kind("jobId an integer", "jobId", () -> JobOptions.builder().jobId("123")),
                kind("jobId \"0\"", "jobId", () -> JobOptions.builder().jobId("0")),
                kind("jobId with one ':'", "jobId", () -> JobOptions.builder().jobId("a:b")),
                kind("jobId a queue key name", "jobId", () -> queue.add("x", Map.of(),
                        JobOptions.builder().jobId("meta").build())),
                kind("delay negative", "delay", () -> JobOptions.builder().delay(Duration.ofMillis(-1))),
                kind("delay past the largest score", "delay", () -> JobOptions.builder()
                        .delay(Duration.ofMillis(Long.MAX_VALUE))),
                kind("attempts negative", "attempts", () -> JobOptions.builder().attempts(-1)),
                kind("priority negative", "priority", () -> JobOptions.builder().priority(-1)),
                kind("priority above the maximum", "priority", () -> JobOptions.builder()
                        .priority(JobOptions.MAX_PRIORITY + 1)),
                kind("timestamp before 1970", "timestamp", () -> JobOptions.builder()
                        .timestamp(Instant.ofEpochMilli(-1))),
                kind("stackTraceLimit negative", "stackTraceLimit", () -> JobOptions.builder().stackTraceLimit(-1)),
                kind("keepLogs negative", "keepLogs", () -> JobOptions.builder().keepLogs(-1)),
                kind("sizeLimit zero", "sizeLimit", () -> JobOptions.builder().sizeLimit(0)),
                kind("backoff jitter above 1", "backoff.jitter", () -> Backoff.fixed(Duration.ofSeconds(1))
                        .withJitter(1.5)),
                kind("backoff delay negative", "backoff.delay", () -> Backoff.exponential(Duration.ofSeconds(-1))),
                kind("backoff type empty", "backoff.type", () -> Backoff.custom("", Duration.ofSeconds(1))),
                kind("keepJobs age negative", "keepJobs.age", () -> KeepJobs.age(Duration.ofSeconds(-1))),
                kind("processor null", "processor", () -> new Worker(q, null, workerOptions().build())),
                kind("concurrency zero", "concurrency", () -> WorkerOptions.builder().concurrency(0)),
                kind("lockDuration zero", "lockDuration", () -> WorkerOptions.builder().lockDuration(Duration.ZERO)),
                kind("lockRenewTime not below lockDuration", "lockRenewTime", () -> WorkerOptions.builder()
                        .lockDuration(Duration.ofSeconds(1)).lockRenewTime(Duration.ofSeconds(1)).build()),
                kind("stalledInterval negative", "stalledInterval", () -> WorkerOptions.builder()
                        .stalledInterval(Duration.ofMillis(-5))),
                kind("maxStalledCount negative", "maxStalledCount", () -> WorkerOptions.builder()
                        .maxStalledCount(-1)),
                kind("drainDelay zero", "drainDelay", () -> WorkerOptions.builder().drainDelay(Duration.ZERO)),
                kind("connection URI blank", "uri", () -> Bull4jConnection.create(" ")),
                kind("connection URI of another scheme", "uri", () -> Bull4jConnection.create("http://localhost")),
                kind("connection URI port not a number", "uri",
                        () -> Bull4jConnection.create("redis://127.0.0.1:notaport")),
                kind("connection URI port out of range", "uri",
                        () -> Bull4jConnection.create("redis://127.0.0.1:70000")),
                kind("connection URI port 0", "uri", () -> Bull4jConnection.create("redis://bull4j-test.invalid:0")),
                kind("connection URI without a host", "uri", () -> Bull4jConnection.create("redis://:6379/0")),
                kind("connection URI without a scheme", "uri", () -> Bull4jConnection.create("127.0.0.1:6379")),
                kind("connection URI database not a number", "uri",
                        () -> Bull4jConnection.create("redis://127.0.0.1:1/first")),
                kind("cluster seed port not a number", "seedUris", () -> Bull4jConnection.createCluster(
                        List.of("redis://127.0.0.1:7000", "redis://127.0.0.1:x7001"), Duration.ofSeconds(1))),
                kind("command timeout zero", "commandTimeout", () -> ConnectionOptions.builder()
                        .commandTimeout(Duration.ZERO)),
                kind("command timeout under 1 ms", "commandTimeout", () -> ConnectionOptions.builder()
                        .commandTimeout(Duration.ofNanos(999_999))),
                kind("command timeout forever", "commandTimeout", () -> ConnectionOptions.builder()
                        .commandTimeout(ChronoUnit.FOREVER.getDuration())),
                kind("command timeout past Lettuce's int of ms", "commandTimeout", () -> ConnectionOptions.builder()
                        .commandTimeout(Duration.ofDays(25))),
                kind("reconnect delay under 1 ms", "reconnectDelayMin", () -> ConnectionOptions.builder()
                        .reconnectDelay(Duration.ofNanos(10), Duration.ofSeconds(1))),
                kind("using a null client", "client", () -> Bull4jConnection.using((io.lettuce.core.RedisClient) null)),
                kind("worker listener null", "listeners", () -> new Worker(q, j -> null, workerOptions().build(),
                        (WorkerListener) null)),
                kind("cluster without seeds", "seedUris", () -> Bull4jConnection.createCluster(List.of(),
                        Duration.ofSeconds(1))),
                kind("events lastEventId malformed", "lastEventId", () -> QueueEventsOptions.builder()
                        .lastEventId("yesterday")),
                kind("events blockTimeout zero", "blockTimeout", () -> QueueEventsOptions.builder()
                        .blockTimeout(Duration.ZERO)),
                kind("events lastEventId past 64 bits", "lastEventId", () -> QueueEventsOptions.builder()
                        .lastEventId("18446744073709551616-0")),
                kind("events lastEventId sequence past 64 bits", "lastEventId", () -> QueueEventsOptions.builder()
                        .lastEventId("1-18446744073709551616")),
                kind("default job options with a jobId", "defaultJobOptions.jobId", () -> QueueOptions.builder()
                        .defaultJobOptions(JobOptions.builder().jobId("fixed").attempts(2).build())),
                kind("default job options null", "defaultJobOptions", () -> QueueOptions.builder()
                        .defaultJobOptions(null)),
                kind("queue clock null", "clock", () -> QueueOptions.builder().clock(null)),
                kind("queue objectMapper null", "objectMapper", () -> QueueOptions.builder().objectMapper(null)),
                kind("worker clock null", "clock", () -> WorkerOptions.builder().clock(null)),
                kind("clean grace forever", "grace", () -> queue.clean(ChronoUnit.FOREVER.getDuration(), 0,
                        JobState.COMPLETED)),
                kind("waitUntilFinished forever", "timeout", () -> existing.waitUntilFinished(
                        ChronoUnit.FOREVER.getDuration())),
                kind("extendLock forever", "duration", () -> existing.extendLock("t",
                        ChronoUnit.FOREVER.getDuration())),
                kind("getJob id empty", "id", () -> queue.getJob("")),
                kind("remove jobId empty", "jobId", () -> queue.remove("")),
                kind("clean limit negative", "limit", () -> queue.clean(Duration.ZERO, -1, JobState.COMPLETED)),
                kind("clean grace negative", "grace", () -> queue.clean(Duration.ofSeconds(-1), 0,
                        JobState.COMPLETED)),
                kind("retryJobs from a non-final state", "state", () -> queue.retryJobs(JobState.WAITING)),
                kind("promoteJobs count zero", "count", () -> queue.promoteJobs(0)),
                kind("repeat every zero", "every", () -> RepeatOptions.builder().every(Duration.ZERO)),
                kind("repeat cron malformed", "cron", () -> RepeatOptions.builder().cron("61 * * * *")),
                kind("repeat limit zero", "limit", () -> RepeatOptions.builder().limit(0)),
                kind("repeat with neither every nor cron", "every", () -> RepeatOptions.builder().build()),
                kind("repeat tz without cron", "tz", () -> RepeatOptions.builder().every(Duration.ofMinutes(1))
                        .tz(ZoneId.of("UTC")).build()),
                kind("scheduler id empty", "id", () -> queue.upsertJobScheduler("", RepeatOptions.builder()
                        .every(Duration.ofMinutes(1)).build(), JobTemplate.of("t", Map.of()))),
                kind("scheduler template with a jobId", "template.options.jobId", () -> JobTemplate.of("t",
                        Map.of(), JobOptions.builder().jobId("fixed").build())),
                kind("job changeDelay negative", "delay", () -> existing.changeDelay(Duration.ofMillis(-1))),
                kind("job changePriority above the maximum", "priority", () -> existing.changePriority(
                        JobOptions.MAX_PRIORITY + 1)),
                kind("job log line null", "line", () -> existing.log(null)),
                kind("job updateData not serializable", "data", () -> existing.updateData(new Loop())),
                kind("job retry into a non-final state", "state", () -> existing.retry(JobState.ACTIVE)));
    }

    @TestFactory
    Stream<DynamicTest> everyKindOfBadApiInputIsRefusedNamingItsFieldAndWritesNothing() {
        return apiKinds().stream().map(k -> DynamicTest.dynamicTest(k.name() + " -> " + k.field(), () -> {
            Map<String, String> before = snapshot();
            ValidationException e = assertThrows(ValidationException.class, k.call(), k.name());
            assertEquals(k.field(), e.field(), k.name() + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(k.field()), "the message names the field: " + e.getMessage());
            assertEquals(before, snapshot(), k.name() + ": nothing written");
        }));
    }

    @Test
    void theCatalogueHasAtLeastThirtyDistinctKinds() {
        List<Kind> kinds = new ArrayList<>(apiKinds());
        Set<String> names = new HashSet<>();
        kinds.forEach(k -> assertTrue(names.add(k.name()), "kind listed twice: " + k.name()));
        assertTrue(names.size() + damagedKinds().size() >= 30, "kinds: " + names.size());
    }

    /** Every key of the queue (its type and, for the id counter and the events stream, its size), by name. */
    private static Map<String, String> snapshot() {
        Map<String, String> out = new java.util.TreeMap<>();
        for (String k : redis().keys("*" + q + "*")) {
            String type = redis().type(k);
            String size = switch (type) {
                case "string" -> redis().get(k);
                case "hash" -> String.valueOf(redis().hlen(k));
                case "list" -> String.valueOf(redis().llen(k));
                case "zset" -> String.valueOf(redis().zcard(k));
                case "stream" -> String.valueOf(redis().xlen(k));
                case "set" -> String.valueOf(redis().scard(k));
                default -> "?";
            };
            out.put(k, type + ":" + size);
        }
        return out;
    }

    // ---- damaged Redis state ------------------------------------------------------------------------------

    private record Damage(String name, String field, JobCall call) {
    }

    private interface JobCall {
        void on(Job job);
    }

    private static List<Damage> damagedKinds() {
        return List.of(
                new Damage("data not JSON", "data", job -> job.data(Map.class)),
                new Damage("data JSON of another shape", "data", job -> job.data(Integer.class)),
                new Damage("returnvalue not JSON", "returnvalue", job -> job.returnValue(Map.class)),
                new Damage("progress not JSON", "progress", Job::progress),
                new Damage("job key holds a string", "key", job -> job.updateData(Map.of("n", 2))));
    }

    @TestFactory
    Stream<DynamicTest> everyKindOfDamagedStateGivesAJobExceptionNamingTheFieldAndTheJob() {
        return damagedKinds().stream().map(d -> DynamicTest.dynamicTest(d.name(), () -> {
            Job job = queue.add("victim", Map.of("n", 1));
            String jobKey = key(q, job.id());
            switch (d.name()) {
                case "data not JSON" -> redis().hset(jobKey, "data", "{not json");
                case "data JSON of another shape" -> redis().hset(jobKey, "data", "[1,2]");
                case "returnvalue not JSON" -> redis().hset(jobKey, "returnvalue", "{oops");
                case "progress not JSON" -> redis().hset(jobKey, "progress", "{oops");
                case "job key holds a string" -> {
                    redis().del(jobKey);
                    redis().set(jobKey, "not a job");
                }
                default -> fail("no damage for " + d.name());
            }
            Job read = d.name().equals("job key holds a string") ? job : queue.getJob(job.id());
            Map<String, String> before = snapshot();
            JobException e = assertThrows(JobException.class, () -> d.call().on(read), d.name());
            assertEquals(JobException.Reason.BAD_DATA, e.reason(), d.name() + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(d.field()), d.name() + ": names the field: " + e.getMessage());
            assertTrue(e.getMessage().contains(job.id()), d.name() + ": names the job: " + e.getMessage());
            assertEquals(before, snapshot(), d.name() + ": nothing written");
        }));
    }
}
