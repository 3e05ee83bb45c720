package io.bull4j;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A {@link Telemetry} hook that fails never fails an add or a job: every call of it throws, and jobs are still added
 * (with nothing stored for the trace) and processed.
 */
class TelemetryHookTest {
    /** Throws from every call, after counting it. */
    static final class Broken implements Telemetry {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public Span startProducer(String name) {
            calls.incrementAndGet();
            throw new IllegalStateException("tracer down");
        }

        @Override
        public Span startConsumer(String name, String parentMetadata) {
            calls.incrementAndGet();
            throw new IllegalStateException("tracer down");
        }
    }

    /** Starts spans whose every method throws. */
    static final class BrokenSpans implements Telemetry {
        final AtomicInteger spans = new AtomicInteger();

        @Override
        public Span startProducer(String name) {
            spans.incrementAndGet();
            return span();
        }

        @Override
        public Span startConsumer(String name, String parentMetadata) {
            spans.incrementAndGet();
            return span();
        }

        private static Span span() {
            return new Span() {
                @Override public String metadata() { throw new IllegalStateException("no metadata"); }
                @Override public void setAttribute(String key, String value) { throw new IllegalStateException(); }
                @Override public void setAttribute(String key, long value) { throw new IllegalStateException(); }
                @Override public void setAttribute(String key, List<String> values) { throw new IllegalStateException(); }
                @Override public void addEvent(String name, String key, String value) { throw new IllegalStateException(); }
                @Override public void recordError(Throwable error) { throw new IllegalStateException(); }
                @Override public Scope makeCurrent() { throw new IllegalStateException(); }
                @Override public void end() { throw new IllegalStateException(); }
            };
        }
    }

    @Test
    void aHookThatThrowsNeverFailsAnAddOrAJob() throws Exception {
        Broken broken = new Broken();
        BrokenSpans brokenSpans = new BrokenSpans();
        for (Telemetry hook : List.<Telemetry>of(broken, brokenSpans)) {
            String q = queueName("telemetry-broken");
            try (Queue queue = new Queue(q, queueOptions().toBuilder().telemetry(hook).build())) {
                Job one = queue.add("one", Map.of("n", 1));
                List<Job> bulk = queue.addBulk(List.of(BulkJob.of("two", Map.of()), BulkJob.of("three", Map.of())));
                assertEquals("{\"attempts\":0}", redis().hget("bull:" + q + ":" + one.id(), "opts"),
                        "nothing stored for the trace");
                CompletableFuture<Void> done = new CompletableFuture<>();
                AtomicInteger completed = new AtomicInteger();
                // registered before the worker starts: one added after could miss a job finished in between
                Worker worker = new Worker(q, j -> "ok", workerOptions().telemetry(hook).build(), new WorkerListener() {
                    @Override
                    public void onCompleted(Job job, Object result) {
                        if (completed.incrementAndGet() == 3) {
                            done.complete(null);
                        }
                    }
                });
                try {
                    await(done);
                } finally {
                    worker.close();
                }
                assertEquals("\"ok\"", redis().hget("bull:" + q + ":" + bulk.get(1).id(), "returnvalue"));
            }
            try (FlowProducer flows = new FlowProducer(queueOptions().toBuilder().telemetry(hook).build())) {
                JobNode tree = flows.add(FlowJob.builder("parent", q).child(FlowJob.builder("kid", q).build()).build());
                assertEquals(2, redis().exists("bull:" + q + ":" + tree.job().id(),
                        "bull:" + q + ":" + tree.children().get(0).job().id()), "the flow was added");
            }
        }
        // per hook: two adds, three attempts, and the flow's call and its two nodes
        assertEquals(8, broken.calls.get(), "every span asked the hook");
        assertEquals(8, brokenSpans.spans.get());
    }
}
