package io.bull4j.otel;

import io.bull4j.FlowJob;
import io.bull4j.FlowProducer;
import io.bull4j.JobNode;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.ValidationException;
import io.bull4j.Worker;
import io.bull4j.support.TestRedis;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.bull4j.otel.OpenTelemetryTracingTest.attr;
import static io.bull4j.otel.OpenTelemetryTracingTest.longAttr;
import static io.bull4j.otel.OpenTelemetryTracingTest.queueOptions;
import static io.bull4j.otel.OpenTelemetryTracingTest.storedTraceparent;
import static io.bull4j.otel.OpenTelemetryTracingTest.traceparent;
import static io.bull4j.otel.OpenTelemetryTracingTest.workerOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The spans of {@link FlowProducer}, as BullMQ 6.7.0's opens them: {@code addFlow <queue>} (or {@code addBulkFlows})
 * around the call, and under it one {@code addNode <queue>} per job, a child of its parent node's span; each job
 * stores its own node span's context in {@code opts.tm}, so that the attempt that runs it continues the trace.
 */
class FlowTracingTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    private final InMemoryOtel sdk = new InMemoryOtel();
    private final OpenTelemetryTracing tracing = sdk.tracing;

    @AfterEach
    void closeSdk() {
        sdk.close();
    }

    private List<SpanData> named(String name) {
        return sdk.exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name))
                .collect(Collectors.toList());
    }

    private SpanData nodeSpan(String queue, String jobId) {
        return named("addNode " + queue).stream().filter(s -> jobId.equals(attr(s, "bullmq.job.id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no addNode span for job " + jobId + " of " + queue));
    }

    @Test
    void addFlowIsASpanWithOneNodeSpanPerJobAndEachAttemptContinuesItsNode() throws Exception {
        String parents = TestRedis.queueName("otel-flow-p");
        String kids = TestRedis.queueName("otel-flow-c");
        try (FlowProducer flows = new FlowProducer(queueOptions(tracing))) {
            Span request = sdk.otel.getTracer("test").spanBuilder("request").startSpan();
            JobNode tree;
            try (Scope ignored = request.makeCurrent()) {
                tree = flows.add(FlowJob.builder("publish", parents).data(Map.of("post", 1))
                        .child(FlowJob.builder("thumb", kids).data(Map.of("size", "s")).build())
                        .child(FlowJob.builder("thumb", kids).data(Map.of("size", "l"))
                                .options(JobOptions.builder().priority(2).build()).build())
                        .build());
            } finally {
                request.end();
            }
            SpanData flow = named("addFlow " + parents).get(0);
            assertEquals(SpanKind.PRODUCER, flow.getKind());
            assertEquals(request.getSpanContext().getSpanId(), flow.getParentSpanId(), "a child of the caller's span");
            assertEquals(parents, attr(flow, "bullmq.queue.name"));
            assertEquals("addFlow", attr(flow, "bullmq.queue.operation"));
            assertEquals("publish", attr(flow, "bullmq.flow.name"));

            String parentId = tree.job().id();
            SpanData parentNode = nodeSpan(parents, parentId);
            assertEquals(flow.getSpanId(), parentNode.getParentSpanId(), "the root's node is the flow's child");
            assertEquals(SpanKind.PRODUCER, parentNode.getKind());
            assertEquals("addNode", attr(parentNode, "bullmq.queue.operation"));
            assertEquals("publish", attr(parentNode, "bullmq.job.name"));
            assertEquals(traceparent(parentNode), storedTraceparent(parents, parentId));
            for (JobNode child : tree.children()) {
                SpanData node = nodeSpan(kids, child.job().id());
                assertEquals(parentNode.getSpanId(), node.getParentSpanId(), "a child node under its parent's");
                assertEquals(flow.getTraceId(), node.getTraceId());
                assertEquals("thumb", attr(node, "bullmq.job.name"));
                assertEquals(traceparent(node), storedTraceparent(kids, child.job().id()),
                        "each job stores its own node's context, with or without options of its own");
            }

            try (Queue kidsQueue = new Queue(kids, queueOptions(tracing));
                 Queue parentsQueue = new Queue(parents, queueOptions(tracing))) {
                Worker kidsWorker = new Worker(kids, j -> j.data(), workerOptions(tracing).build());
                Worker parentWorker = new Worker(parents, j -> j.getChildrenValues().size(),
                        workerOptions(tracing).build());
                try {
                    TestRedis.eventually(WAIT, () -> parentsQueue.getJob(parentId).finishedOn() != null,
                            "the parent ran after its children");
                    TestRedis.eventually(WAIT, () -> named("process " + kids).size() == 2
                            && named("process " + parents).size() == 1, "the three attempts' spans ended");
                    for (SpanData attempt : named("process " + kids)) {
                        String id = attr(attempt, "bullmq.job.id");
                        assertEquals(nodeSpan(kids, id).getSpanId(), attempt.getParentSpanId(),
                                "a child's attempt continues its node's span");
                    }
                    SpanData parentAttempt = named("process " + parents).get(0);
                    assertEquals(parentNode.getSpanId(), parentAttempt.getParentSpanId());
                    assertEquals(1L, longAttr(parentAttempt, "bullmq.job.attempts.made"));
                    assertEquals(2, kidsQueue.getJob(tree.children().get(1).job().id()).opts().priority(),
                            "the node's own options are kept beside tm");
                } finally {
                    kidsWorker.close();
                    parentWorker.close();
                }
            }
        }
    }

    @Test
    void addBulkIsOneSpanOverTheRootsNodes() {
        String q = TestRedis.queueName("otel-flow-bulk");
        try (FlowProducer flows = new FlowProducer(queueOptions(tracing))) {
            List<JobNode> trees = flows.addBulk(List.of(
                    FlowJob.builder("a", q).child(FlowJob.builder("a1", q).build()).build(),
                    FlowJob.builder("b", q).build()));
            SpanData bulk = named("addBulkFlows").get(0);
            assertEquals(SpanKind.PRODUCER, bulk.getKind());
            assertEquals("", attr(bulk, "bullmq.queue.name"));
            assertEquals("addBulkFlows", attr(bulk, "bullmq.queue.operation"));
            assertEquals("a,b", attr(bulk, "bullmq.job.bulk.names"), "joined, as BullMQ's FlowProducer writes it");
            assertEquals(2L, longAttr(bulk, "bullmq.job.bulk.count"));
            for (JobNode root : trees) {
                assertEquals(bulk.getSpanId(), nodeSpan(q, root.job().id()).getParentSpanId());
            }
            SpanData a = nodeSpan(q, trees.get(0).job().id());
            assertEquals(a.getSpanId(), nodeSpan(q, trees.get(0).children().get(0).job().id()).getParentSpanId());
            assertEquals(3, named("addNode " + q).size());
        }
    }

    @Test
    void aRefusedFlowEndsItsSpansWithTheErrorAndWritesNothing() {
        String q = TestRedis.queueName("otel-flow-bad");
        try (FlowProducer flows = new FlowProducer(queueOptions(tracing))) {
            FlowJob bad = FlowJob.builder("root", q)
                    .child(FlowJob.builder("ok", q).build())
                    .child(FlowJob.builder("dedup", q).options(JobOptions.builder()
                            .deduplication(io.bull4j.Deduplication.of("d")).build()).build())
                    .build();
            assertThrows(ValidationException.class, () -> flows.add(bad));
            SpanData flow = named("addFlow " + q).get(0);
            assertEquals(StatusCode.ERROR, flow.getStatus().getStatusCode());
            List<SpanData> nodes = named("addNode " + q);
            assertEquals(2, nodes.size(), "the nodes planned before the refusal ended too: root and ok");
            nodes.forEach(n -> assertEquals(StatusCode.ERROR, n.getStatus().getStatusCode()));
            assertEquals(List.of(), TestRedis.redis().keys(TestRedis.key(q, "*")), "nothing written");
        }
    }
}
