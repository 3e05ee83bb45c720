package io.bull4j.otel;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.BulkJob;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.internal.codec.Json;
import io.bull4j.support.TestRedis;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link OpenTelemetryTracing} with the SDK's in-memory exporter, on a real Redis: the spans of add, addBulk, a job
 * scheduler's upsert and of attempts that complete and fail, with BullMQ's names, kinds and attributes; the context
 * stored in the job's {@code opts.tm}; and nothing traced or stored without the option. The Node side is in
 * {@code OpenTelemetryInteropTest}.
 */
class OpenTelemetryTracingTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    final InMemoryOtel sdk = new InMemoryOtel();
    final InMemorySpanExporter exporter = sdk.exporter;
    final OpenTelemetrySdk otel = sdk.otel;
    final OpenTelemetryTracing tracing = sdk.tracing;

    @AfterEach
    void closeSdk() {
        sdk.close();
    }

    static QueueOptions queueOptions(OpenTelemetryTracing tracing) {
        return QueueOptions.builder().connection(TestRedis.connection()).telemetry(tracing).build();
    }

    static WorkerOptions.Builder workerOptions(OpenTelemetryTracing tracing) {
        return WorkerOptions.builder().connection(TestRedis.connection()).drainDelay(Duration.ofSeconds(1))
                .telemetry(tracing);
    }

    static String attr(SpanData s, String key) {
        return s.getAttributes().get(AttributeKey.stringKey(key));
    }

    static Long longAttr(SpanData s, String key) {
        return s.getAttributes().get(AttributeKey.longKey(key));
    }

    /** The {@code traceparent} a job's {@code opts.tm} holds (bullmq-otel's form: the propagator's fields as JSON). */
    static String storedTraceparent(String q, String jobId) {
        JsonNode opts = Json.tree(TestRedis.hash(q, jobId).get("opts"));
        assertTrue(opts.path("tm").isTextual(), "opts.tm is a JSON text: " + opts);
        return Json.tree(opts.get("tm").asText()).path("traceparent").asText();
    }

    static String traceparent(SpanData s) {
        return "00-" + s.getTraceId() + "-" + s.getSpanId() + "-" + s.getSpanContext().getTraceFlags().asHex();
    }

    List<SpanData> spans(String name, int atLeast) throws InterruptedException {
        TestRedis.eventually(WAIT, () -> named(name).size() >= atLeast, atLeast + " span(s) " + name);
        return named(name);
    }

    private List<SpanData> named(String name) {
        return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name))
                .collect(Collectors.toList());
    }

    @Test
    void addIsAProducerSpanWhoseContextIsStoredInTheJobAndTheAttemptIsItsChild() throws Exception {
        String q = TestRedis.queueName("otel-add");
        Map<String, String> currentInProcessor = new ConcurrentHashMap<>();
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            Span request = otel.getTracer("test").spanBuilder("request").startSpan();
            Job job;
            try (Scope ignored = request.makeCurrent()) {
                job = queue.add("welcome", Map.of("to", "ana@example.com"));
            } finally {
                request.end();
            }
            SpanData add = spans("add " + q + ".welcome", 1).get(0);
            assertEquals(SpanKind.PRODUCER, add.getKind());
            assertEquals(request.getSpanContext().getTraceId(), add.getTraceId(), "a child of the caller's span");
            assertEquals(request.getSpanContext().getSpanId(), add.getParentSpanId());
            assertEquals(q, attr(add, "bullmq.queue.name"));
            assertEquals("add", attr(add, "bullmq.queue.operation"));
            assertEquals("welcome", attr(add, "bullmq.job.name"));
            assertEquals(job.id(), attr(add, "bullmq.job.id"));
            assertEquals("io.bull4j", add.getInstrumentationScopeInfo().getName());
            assertEquals(traceparent(add), storedTraceparent(q, job.id()), "the add span's context, as opts.tm");

            Worker worker = new Worker(q, j -> {
                Span current = Span.current();
                currentInProcessor.put("traceId", current.getSpanContext().getTraceId());
                currentInProcessor.put("spanId", current.getSpanContext().getSpanId());
                return Map.of("sent", true);
            }, workerOptions(tracing).name("mailer").build());
            try {
                SpanData process = spans("process " + q, 1).get(0);
                assertEquals(SpanKind.CONSUMER, process.getKind());
                assertEquals(add.getTraceId(), process.getTraceId(), "one trace from the add to the attempt");
                assertEquals(add.getSpanId(), process.getParentSpanId(), "the attempt is the add's child");
                assertEquals(process.getSpanId(), currentInProcessor.get("spanId"), "current while the processor runs");
                assertEquals(q, attr(process, "bullmq.queue.name"));
                assertEquals("process", attr(process, "bullmq.queue.operation"));
                assertEquals(job.id(), attr(process, "bullmq.job.id"));
                assertEquals("welcome", attr(process, "bullmq.job.name"));
                assertEquals("mailer", attr(process, "bullmq.worker.name"));
                assertNotNull(attr(process, "bullmq.worker.id"));
                assertEquals(1L, longAttr(process, "bullmq.job.attempts.made"));
                Job done = queue.getJob(job.id());
                assertEquals(done.processedOn().toEpochMilli(), longAttr(process, "bullmq.job.processed.timestamp"));
                assertTrue(longAttr(process, "bullmq.job.attempt_finished_timestamp") >= done.finishedOn()
                        .toEpochMilli());
                EventData completed = single(process.getEvents(), "job completed");
                assertEquals("{\"sent\":true}", completed.getAttributes().get(AttributeKey.stringKey(
                        "bullmq.job.result")));
                assertEquals(StatusCode.UNSET, process.getStatus().getStatusCode());
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void addBulkIsOneSpanWhoseContextEveryJobCarries() throws Exception {
        String q = TestRedis.queueName("otel-bulk");
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            List<Job> jobs = queue.addBulk(List.of(BulkJob.of("a", Map.of("n", 1)),
                    BulkJob.of("b", Map.of("n", 2), JobOptions.builder().priority(3).build())));
            SpanData bulk = spans("addBulk " + q, 1).get(0);
            assertEquals(SpanKind.PRODUCER, bulk.getKind());
            assertEquals(q, attr(bulk, "bullmq.queue.name"));
            assertEquals("addBulk", attr(bulk, "bullmq.queue.operation"));
            assertEquals(List.of("a", "b"), bulk.getAttributes().get(AttributeKey.stringArrayKey(
                    "bullmq.job.bulk.names")));
            assertEquals(2L, longAttr(bulk, "bullmq.job.bulk.count"));
            for (Job j : jobs) {
                assertEquals(traceparent(bulk), storedTraceparent(q, j.id()));
            }
            assertEquals(3, Json.tree(TestRedis.hash(q, jobs.get(1).id()).get("opts")).get("priority").asInt(),
                    "the job's own options are kept beside tm");
            assertEquals(3, queue.getJob(jobs.get(1).id()).opts().priority());
        }
    }

    @Test
    void upsertJobSchedulerIsAnAddSpanWhoseContextEveryRunCarries() throws Exception {
        String q = TestRedis.queueName("otel-scheduler");
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            Job first = queue.upsertJobScheduler("tick", io.bull4j.RepeatOptions.builder()
                    .every(Duration.ofMillis(200)).build(), io.bull4j.JobTemplate.of("tick-job", Map.of("n", 1)));
            SpanData add = spans("add " + q + ".tick-job", 1).get(0);
            assertEquals(SpanKind.PRODUCER, add.getKind());
            assertEquals("add", attr(add, "bullmq.queue.operation"));
            assertEquals("tick", attr(add, "bullmq.job.scheduler.id"));
            assertEquals(first.id(), attr(add, "bullmq.job.id"));
            assertEquals(traceparent(add), storedTraceparent(q, first.id()), "the first run stores the context");
            Worker worker = new Worker(q, j -> j.id(), workerOptions(tracing).build());
            try {
                // as with BullMQ, each next run copies its run's options, tm included: all continue the upsert's trace
                List<SpanData> runs = spans("process " + q, 2);
                for (SpanData run : runs) {
                    assertEquals(add.getSpanId(), run.getParentSpanId(), "run " + attr(run, "bullmq.job.id"));
                }
                assertEquals(2, runs.stream().map(r -> attr(r, "bullmq.job.id")).distinct().count(), "two runs");
            } finally {
                worker.close();
                queue.removeJobScheduler("tick");
            }
        }
    }

    @Test
    void everyFailedAttemptIsASpanWithTheReasonAndBothAreChildrenOfTheAdd() throws Exception {
        String q = TestRedis.queueName("otel-fail");
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            Job job = queue.add("flaky", Map.of(), JobOptions.builder().attempts(2).build());
            SpanData add = spans("add " + q + ".flaky", 1).get(0);
            Worker worker = new Worker(q, j -> {
                throw new IllegalStateException("no luck " + j.attemptsMade());
            }, workerOptions(tracing).build());
            try {
                List<SpanData> attempts = spans("process " + q, 2);
                assertEquals(2, attempts.size());
                attempts.sort((x, y) -> Long.compare(x.getStartEpochNanos(), y.getStartEpochNanos()));
                for (int i = 0; i < 2; i++) {
                    SpanData a = attempts.get(i);
                    assertEquals(add.getSpanId(), a.getParentSpanId(), "each attempt continues the add's trace");
                    assertEquals(i + 1L, longAttr(a, "bullmq.job.attempts.made"));
                    EventData failed = single(a.getEvents(), "job failed");
                    assertEquals("no luck " + i, failed.getAttributes().get(AttributeKey.stringKey(
                            "bullmq.job.failed.reason")));
                    assertEquals(StatusCode.ERROR, a.getStatus().getStatusCode());
                    assertTrue(a.getEvents().stream().anyMatch(e -> e.getName().equals("exception")),
                            "the error is recorded");
                }
                TestRedis.eventually(WAIT, () -> "no luck 1".equals(queue.getJob(job.id()).failedReason()),
                        "the job failed for good");
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void withoutTheOptionNothingIsTracedOrStoredAndAnUntracedJobStartsATraceOfItsOwn() throws Exception {
        String q = TestRedis.queueName("otel-none");
        try (Queue plain = new Queue(q, QueueOptions.builder().connection(TestRedis.connection()).build())) {
            Span request = otel.getTracer("test").spanBuilder("request").startSpan();
            Job job;
            try (Scope ignored = request.makeCurrent()) {
                job = plain.add("plain", Map.of());
            } finally {
                request.end();
            }
            assertEquals("{\"attempts\":0}", TestRedis.hash(q, job.id()).get("opts"), "no tm without telemetry");
            Worker worker = new Worker(q, j -> "ok", workerOptions(tracing).build());
            try {
                SpanData process = spans("process " + q, 1).get(0);
                assertFalse(process.getParentSpanContext().isValid(), "no stored context: a root span");
                assertNotEquals(request.getSpanContext().getTraceId(), process.getTraceId());
            } finally {
                worker.close();
            }
            List<String> names = exporter.getFinishedSpanItems().stream().map(SpanData::getName)
                    .collect(Collectors.toList());
            assertEquals(List.of("request", "process " + q), names, "the untraced queue made no span");
        }
    }

    @Test
    void theNoOpOpenTelemetryStoresNothing() throws Exception {
        String q = TestRedis.queueName("otel-noop");
        OpenTelemetryTracing noop = OpenTelemetryTracing.create(io.opentelemetry.api.OpenTelemetry.noop());
        try (Queue queue = new Queue(q, queueOptions(noop))) {
            Job job = queue.add("quiet", Map.of());
            assertEquals("{\"attempts\":0}", TestRedis.hash(q, job.id()).get("opts"), "no propagator, no tm");
            Worker worker = new Worker(q, j -> "ok", workerOptions(noop).build());
            try {
                TestRedis.eventually(WAIT, () -> "\"ok\"".equals(TestRedis.hash(q, job.id()).get("returnvalue")),
                        "the job ran");
            } finally {
                worker.close();
            }
        }
        assertEquals(List.of(), exporter.getFinishedSpanItems(), "the SDK of this test saw nothing");
    }

    @Test
    void theCoreNeverReferencesOpenTelemetry() throws IOException {
        // the classes of io.bull4j, io.bull4j.internal.* and the rest of io.bull4j.spring name no OpenTelemetry
        // type, so an application without it never loads one (ModularConsumerTest runs a job without it on the
        // path). Only io.bull4j.otel does, and the Spring auto-configuration that Boot loads only when
        // OpenTelemetry is on the class path (@ConditionalOnClass, read by Boot without loading the class)
        Path classes = Path.of(Queue.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<String> offenders = new ArrayList<>();
        int checked = 0;
        try (Stream<Path> files = Files.walk(classes.resolve("io/bull4j"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String rel = classes.relativize(f).toString().replace('\\', '/');
                if (!rel.endsWith(".class") || rel.startsWith("io/bull4j/otel/")
                        || rel.equals("io/bull4j/spring/Bull4jTracingAutoConfiguration.class")) {
                    continue;
                }
                checked++;
                String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                if (bytes.contains("io/opentelemetry")) {
                    offenders.add(rel);
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        assertTrue(checked > 100, "the core's classes were found: " + checked);
        assertEquals(List.of(), offenders);
        assertTrue(Files.readString(classes.resolve("io/bull4j/otel/OpenTelemetryTracing.class")
                .toAbsolutePath(), StandardCharsets.ISO_8859_1).contains("io/opentelemetry"), "the check can fail");
    }

    private static EventData single(List<EventData> events, String name) {
        List<EventData> found = events.stream().filter(e -> e.getName().equals(name)).collect(Collectors.toList());
        assertEquals(1, found.size(), name + " in " + events);
        return found.get(0);
    }
}
