package io.bull4j.otel;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.internal.codec.Json;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.bull4j.otel.OpenTelemetryTracingTest.attr;
import static io.bull4j.otel.OpenTelemetryTracingTest.queueOptions;
import static io.bull4j.otel.OpenTelemetryTracingTest.workerOptions;
import static org.junit.jupiter.api.Assertions.*;

/**
 * One trace across Node and Java: the real bullmq 6.7.0 with {@code bullmq-otel} and the OpenTelemetry JS SDK
 * (src/test/node/interop-otel.mjs, spans printed as JSON from its in-memory exporter) on one side, bull4j with
 * {@link OpenTelemetryTracing} and the Java SDK's in-memory exporter on the other, on the test Redis. Each side's
 * consumer span is the child of the other side's producer span, as BullMQ links them.
 */
class OpenTelemetryInteropTest {
    private static final Duration NODE = Duration.ofSeconds(60);
    /** OpenTelemetry JS's SpanKind numbers. */
    private static final int NODE_PRODUCER = 3;
    private static final int NODE_CONSUMER = 4;

    final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    final OpenTelemetryTracing tracing = OpenTelemetryTracing.create(OpenTelemetrySdk.builder()
            .setTracerProvider(provider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build());

    @BeforeEach
    void node() {
        NodeBullmq.assumeAvailable();
    }

    @AfterEach
    void closeSdk() {
        provider.close();
    }

    private static JsonNode bullmq(String command, String queue, Object args) {
        return NodeBullmq.runOne(NODE, "interop-otel.mjs", command, RedisTestServer.get().uri(), queue,
                Json.write(Json.DEFAULT, args, "args"));
    }

    /** The spans named {@code name} among those a Node command printed. */
    private static List<JsonNode> nodeSpans(JsonNode printed, String name) {
        List<JsonNode> found = new ArrayList<>();
        printed.get("spans").forEach(s -> {
            if (s.get("name").asText().equals(name)) {
                found.add(s);
            }
        });
        return found;
    }

    private static JsonNode nodeSpan(JsonNode printed, String name) {
        List<JsonNode> found = nodeSpans(printed, name);
        assertEquals(1, found.size(), name + " among " + printed.get("spans"));
        return found.get(0);
    }

    @Test
    void aTraceStartedByANodeProducerContinuesInABull4jWorker() throws Exception {
        String q = TestRedis.queueName("otel-from-node");
        JsonNode added = bullmq("add", q, Map.of("name", "invoice", "data", Map.of("n", 1)));
        JsonNode add = nodeSpan(added, "add " + q + ".invoice");
        assertEquals(NODE_PRODUCER, add.get("kind").asInt());
        String id = added.get("id").asText();
        assertEquals(id, add.path("attributes").path("bullmq.job.id").asText());
        // what bullmq-otel stored: the propagator's fields as JSON in opts.tm
        JsonNode tm = Json.tree(Json.tree(TestRedis.hash(q, id).get("opts")).get("tm").asText());
        assertTrue(tm.get("traceparent").asText().startsWith("00-" + add.get("traceId").asText() + "-"
                + add.get("spanId").asText() + "-"), tm.toString());

        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            Worker worker = new Worker(q, (Job j) -> "done by java", workerOptions(tracing).build());
            try {
                TestRedis.eventually(OpenTelemetryTracingTest.WAIT, () -> exporter.getFinishedSpanItems().stream()
                        .anyMatch(s -> s.getName().equals("process " + q)), "the Java process span");
            } finally {
                worker.close();
            }
            SpanData process = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals("process " + q)).findFirst().orElseThrow();
            assertEquals(SpanKind.CONSUMER, process.getKind());
            assertEquals(add.get("traceId").asText(), process.getTraceId(), "the Node producer's trace");
            assertEquals(add.get("spanId").asText(), process.getParentSpanId(), "a child of Node's add span");
            assertTrue(process.getParentSpanContext().isRemote());
            assertEquals(id, attr(process, "bullmq.job.id"));
            assertEquals("invoice", attr(process, "bullmq.job.name"));
            assertEquals("done by java", queue.getJob(id).returnValue(String.class));
        }
    }

    @Test
    void aTraceStartedByABull4jProducerContinuesInANodeWorker() throws Exception {
        String q = TestRedis.queueName("otel-to-node");
        Job job;
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            job = queue.add("report", Map.of("month", "2026-11"));
        }
        SpanData add = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("add " + q + ".report")).findFirst().orElseThrow();

        JsonNode worked = bullmq("work", q, Map.of("count", 1));
        assertEquals(List.of(job.id()), List.of(worked.get("completed").get(0).asText()));
        JsonNode process = nodeSpan(worked, "process " + q);
        assertEquals(NODE_CONSUMER, process.get("kind").asInt());
        assertEquals(add.getTraceId(), process.get("traceId").asText(), "the Java producer's trace");
        assertEquals(add.getSpanId(), process.get("parentSpanId").asText(), "a child of Java's add span");
        assertEquals(job.id(), process.path("attributes").path("bullmq.job.id").asText());
        assertEquals("report", process.path("attributes").path("bullmq.job.name").asText());
        assertEquals("\"done by node\"", TestRedis.hash(q, job.id()).get("returnvalue"));
    }

    @Test
    void eachJobOfAFlowTracedByBull4jContinuesItsNodeInANodeWorker() throws Exception {
        String q = TestRedis.queueName("otel-flow-to-node");
        io.bull4j.JobNode tree;
        try (io.bull4j.FlowProducer flows = new io.bull4j.FlowProducer(queueOptions(tracing))) {
            tree = flows.add(io.bull4j.FlowJob.builder("parent", q)
                    .child(io.bull4j.FlowJob.builder("child", q).build()).build());
        }
        Map<String, String> nodeSpanOf = new java.util.HashMap<>();
        exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals("addNode " + q))
                .forEach(s -> nodeSpanOf.put(attr(s, "bullmq.job.id"), s.getSpanId()));
        assertEquals(2, nodeSpanOf.size(), "a node span per job");

        JsonNode worked = bullmq("work", q, Map.of("count", 2)); // the child, then its released parent
        List<JsonNode> processes = nodeSpans(worked, "process " + q);
        assertEquals(2, processes.size(), worked.toString());
        for (JsonNode process : processes) {
            String id = process.path("attributes").path("bullmq.job.id").asText();
            assertEquals(nodeSpanOf.get(id), process.get("parentSpanId").asText(),
                    "Node's attempt of job " + id + " continues its bull4j addNode span");
        }
        assertEquals(tree.job().id(), worked.get("completed").get(1).asText(), "the parent ran last");
    }

    @Test
    void eachJobOfAFlowTracedByNodeContinuesItsNodeInABull4jWorker() throws Exception {
        String q = TestRedis.queueName("otel-flow-from-node");
        JsonNode added = bullmq("flow", q, Map.of());
        Map<String, JsonNode> nodeSpanOf = new java.util.HashMap<>();
        nodeSpans(added, "addNode " + q).forEach(s -> nodeSpanOf.put(s.path("attributes").path("bullmq.job.id")
                .asText(), s));
        String parentId = added.get("parentId").asText();
        String childId = added.get("childId").asText();
        assertEquals(java.util.Set.of(parentId, childId), nodeSpanOf.keySet(), "a Node addNode span per job");

        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        Worker worker = new Worker(q, (Job j) -> {
            ran.add(j.id());
            return "done by java";
        }, workerOptions(tracing).build());
        try {
            TestRedis.eventually(OpenTelemetryTracingTest.WAIT, () -> exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals("process " + q)).count() == 2, "both Java process spans");
        } finally {
            worker.close();
        }
        assertEquals(List.of(childId, parentId), ran, "the child, then its released parent");
        for (SpanData process : exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("process " + q)).toList()) {
            JsonNode node = nodeSpanOf.get(attr(process, "bullmq.job.id"));
            assertEquals(node.get("traceId").asText(), process.getTraceId(), "the Node flow's trace");
            assertEquals(node.get("spanId").asText(), process.getParentSpanId(),
                    "Java's attempt of job " + attr(process, "bullmq.job.id") + " continues its Node addNode span");
        }
    }

    @Test
    void everyRunOfAJobSchedulerUpsertedByBull4jContinuesItsSpanInANodeWorker() throws Exception {
        String q = TestRedis.queueName("otel-sched-to-node");
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            queue.upsertJobScheduler("tick", io.bull4j.RepeatOptions.builder().every(Duration.ofMillis(200)).build(),
                    io.bull4j.JobTemplate.of("tick-job", Map.of()));
            SpanData upsert = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals("add " + q + ".tick-job")).findFirst().orElseThrow();
            // Node's worker adds the second run itself, from the first run's options (tm included)
            JsonNode worked = bullmq("work", q, Map.of("count", 2));
            queue.removeJobScheduler("tick");
            List<JsonNode> processes = nodeSpans(worked, "process " + q);
            assertEquals(2, processes.size(), worked.toString());
            for (JsonNode process : processes) {
                assertEquals(upsert.getSpanId(), process.get("parentSpanId").asText(), "run "
                        + process.path("attributes").path("bullmq.job.id").asText() + " continues the upsert");
            }
        }
    }

    @Test
    void everyRunOfAJobSchedulerUpsertedByNodeContinuesItsSpanInABull4jWorker() throws Exception {
        String q = TestRedis.queueName("otel-sched-from-node");
        JsonNode upsert = nodeSpan(bullmq("schedule", q, Map.of("everyMs", 200)), "add " + q + ".tick-job");
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (Queue queue = new Queue(q, queueOptions(tracing))) {
            // bull4j's worker adds the second run itself, from the first run's options (tm included)
            Worker worker = new Worker(q, (Job j) -> {
                ran.add(j.id());
                return null;
            }, workerOptions(tracing).build());
            try {
                TestRedis.eventually(OpenTelemetryTracingTest.WAIT, () -> exporter.getFinishedSpanItems().stream()
                        .filter(s -> s.getName().equals("process " + q)).count() >= 2, "two Java process spans");
            } finally {
                worker.close();
                queue.removeJobScheduler("tick");
            }
        }
        assertTrue(ran.size() >= 2 && ran.stream().allMatch(id -> id.startsWith("repeat:tick:")), ran.toString());
        for (SpanData process : exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("process " + q)).toList()) {
            assertEquals(upsert.get("traceId").asText(), process.getTraceId(), "the Node upsert's trace");
            assertEquals(upsert.get("spanId").asText(), process.getParentSpanId(),
                    "run " + attr(process, "bullmq.job.id") + " continues Node's upsert span");
        }
    }
}
