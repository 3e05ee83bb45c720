package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.codec.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The spans of adds (of jobs and of flows) and attempts, named and attributed as BullMQ 6.7.0 does ({@code enums/telemetry-attributes}),
 * and the trace context in a job's options: {@code opts.tm}, the producer span's context as its {@link Telemetry}
 * writes it. Only called when a {@link Telemetry} is set; a hook that throws is logged and never breaks an add or a
 * job.
 */
final class Traces {
    private static final Logger log = LoggerFactory.getLogger(Traces.class);

    static final String QUEUE_NAME = "bullmq.queue.name";
    static final String QUEUE_OPERATION = "bullmq.queue.operation";
    static final String JOB_NAME = "bullmq.job.name";
    static final String JOB_ID = "bullmq.job.id";
    static final String BULK_NAMES = "bullmq.job.bulk.names";
    static final String BULK_COUNT = "bullmq.job.bulk.count";
    static final String WORKER_ID = "bullmq.worker.id";
    static final String WORKER_NAME = "bullmq.worker.name";
    static final String ATTEMPTS_MADE = "bullmq.job.attempts.made";
    static final String ATTEMPT_FINISHED = "bullmq.job.attempt_finished_timestamp";
    static final String PROCESSED = "bullmq.job.processed.timestamp";
    static final String RESULT = "bullmq.job.result";
    static final String FAILED_REASON = "bullmq.job.failed.reason";
    static final String FLOW_NAME = "bullmq.flow.name";
    static final String SCHEDULER_ID = "bullmq.job.scheduler.id";
    /** The job option that carries the producer's context (BullMQ's {@code telemetry.metadata}). */
    static final String METADATA_OPTION = "tm";

    private Traces() {
    }

    /** The span of {@code queue.add}: {@code add <queue>.<name>}, as BullMQ's Queue.add. */
    static Telemetry.Span startAdd(Telemetry t, String queue, String jobName) {
        return startProducer(t, "add " + queue + "." + jobName, queue, "add");
    }

    /** The span of {@code queue.addBulk}: {@code addBulk <queue>} with the jobs' names and count. */
    static Telemetry.Span startAddBulk(Telemetry t, String queue, List<String> names) {
        Telemetry.Span span = startProducer(t, "addBulk " + queue, queue, "addBulk");
        if (span != null) {
            guard(() -> {
                span.setAttribute(BULK_NAMES, names);
                span.setAttribute(BULK_COUNT, names.size());
            });
        }
        return span;
    }

    /** The span of {@code FlowProducer.add}: {@code addFlow <queue>} with the root's name, as BullMQ's. */
    static Telemetry.Span startAddFlow(Telemetry t, String queue, String flowName) {
        Telemetry.Span span = startProducer(t, "addFlow " + queue, queue, "addFlow");
        if (span != null) {
            guard(() -> span.setAttribute(FLOW_NAME, flowName));
        }
        return span;
    }

    /**
     * The span of {@code FlowProducer.addBulk}: {@code addBulkFlows}, with the roots' count and their names joined
     * by commas (BullMQ joins them here, where its {@code addBulk} span lists them).
     */
    static Telemetry.Span startAddBulkFlows(Telemetry t, List<String> names) {
        Telemetry.Span span = startProducer(t, "addBulkFlows", "", "addBulkFlows");
        if (span != null) {
            guard(() -> {
                span.setAttribute(BULK_COUNT, names.size());
                span.setAttribute(BULK_NAMES, String.join(",", names));
            });
        }
        return span;
    }

    /**
     * The span of one node of a flow, {@code addNode <queue>}, a child of {@code parent} (the span of the node's
     * parent, or the flow's span for a root): its context is what the node's job stores, as in BullMQ.
     */
    static Telemetry.Span startAddNode(Telemetry t, Telemetry.Span parent, String queue, String jobName,
                                       String jobId) {
        Telemetry.Scope scope = makeCurrent(parent);
        try {
            Telemetry.Span span = startProducer(t, "addNode " + queue, queue, "addNode");
            if (span != null) {
                guard(() -> {
                    span.setAttribute(JOB_NAME, jobName);
                    span.setAttribute(JOB_ID, jobId);
                });
            }
            return span;
        } finally {
            close(scope);
        }
    }

    private static Telemetry.Span startProducer(Telemetry t, String name, String queue, String operation) {
        Telemetry.Span span;
        try {
            span = t.startProducer(name);
        } catch (RuntimeException e) {
            log.warn("telemetry: cannot start span {}", name, e);
            return null;
        }
        if (span != null) {
            guard(() -> {
                span.setAttribute(QUEUE_NAME, queue);
                span.setAttribute(QUEUE_OPERATION, operation);
            });
        }
        return span;
    }

    /** The span's context to store in the job, or null for none. */
    static String metadata(Telemetry.Span span) {
        if (span == null) {
            return null;
        }
        try {
            String m = span.metadata();
            return m == null || m.isEmpty() ? null : m;
        } catch (RuntimeException e) {
            log.warn("telemetry: cannot read the span's context", e);
            return null;
        }
    }

    /** Options JSON with the context added as {@code "tm"}, as BullMQ's add stores {@code telemetry.metadata}. */
    static String withMetadata(String optsJson, String metadata) {
        if (metadata == null) {
            return optsJson;
        }
        // OptionsCodec writes an object that always holds "attempts": add the field before its closing brace
        int end = optsJson.lastIndexOf('}');
        return optsJson.substring(0, end) + ",\"" + METADATA_OPTION + "\":"
                + Json.DEFAULT.getNodeFactory().textNode(metadata).toString() + optsJson.substring(end);
    }

    /**
     * A future that completes as {@code f} does, with the same value or the same exception (not wrapped, as
     * {@code whenComplete} would), once {@code end} has run: the caller sees the add after its span ended.
     */
    static <T> java.util.concurrent.CompletableFuture<T> endingWith(java.util.concurrent.CompletableFuture<T> f,
            java.util.function.BiConsumer<T, Throwable> end) {
        java.util.concurrent.CompletableFuture<T> out = new java.util.concurrent.CompletableFuture<>();
        f.whenComplete((value, error) -> {
            end.accept(value, error);
            if (error != null) {
                out.completeExceptionally(error);
            } else {
                out.complete(value);
            }
        });
        return out;
    }

    /** Ends an add's span once Redis answered: the job's id, or the error. */
    static void endAdd(Telemetry.Span span, String jobName, String jobId, Throwable error) {
        if (span == null) {
            return;
        }
        guard(() -> {
            if (error != null) {
                span.recordError(error);
            } else {
                span.setAttribute(JOB_NAME, jobName);
                span.setAttribute(JOB_ID, jobId);
            }
        });
        guard(span::end);
    }

    /** Ends the add span of {@code upsertJobScheduler} once Redis answered, as BullMQ's JobScheduler sets it. */
    static void endSchedulerAdd(Telemetry.Span span, String schedulerId, String jobId) {
        if (span == null) {
            return;
        }
        guard(() -> {
            span.setAttribute(SCHEDULER_ID, schedulerId);
            span.setAttribute(JOB_ID, jobId);
        });
        guard(span::end);
    }

    /** Ends a span (a bulk add's, a flow's or a flow node's), recording the error if there is one. */
    static void end(Telemetry.Span span, Throwable error) {
        if (span == null) {
            return;
        }
        if (error != null) {
            guard(() -> span.recordError(error));
        }
        guard(span::end);
    }

    /**
     * The span of one attempt, {@code process <queue>}, a child of the context the job's producer stored; its
     * attributes as BullMQ's Worker.processJob sets them.
     */
    static Telemetry.Span startProcess(Telemetry t, Job job, String workerId, String workerName) {
        String name = "process " + job.queueName();
        Telemetry.Span span;
        try {
            span = t.startConsumer(name, storedMetadata(job.fields().get("opts")));
        } catch (RuntimeException e) {
            log.warn("telemetry: cannot start span {}", name, e);
            return null;
        }
        if (span != null) {
            guard(() -> {
                span.setAttribute(QUEUE_NAME, job.queueName());
                span.setAttribute(QUEUE_OPERATION, "process");
                span.setAttribute(WORKER_ID, workerId);
                span.setAttribute(WORKER_NAME, workerName);
                span.setAttribute(JOB_ID, job.id());
                span.setAttribute(JOB_NAME, job.name());
            });
        }
        return span;
    }

    /** The context a producer stored in the job's options ({@code tm}), or null. */
    static String storedMetadata(String optsJson) {
        if (optsJson == null || !optsJson.contains("\"" + METADATA_OPTION + "\"")) {
            return null; // most jobs: no parse
        }
        try {
            JsonNode tm = Json.tree(optsJson).get(METADATA_OPTION);
            return tm != null && tm.isTextual() ? tm.asText() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The attempt completed: BullMQ's {@code job completed} event with the result as JSON. */
    static void completed(Telemetry.Span span, String resultJson, int attemptsMade) {
        if (span != null) {
            guard(() -> {
                span.addEvent("job completed", RESULT, resultJson);
                span.setAttribute(ATTEMPTS_MADE, attemptsMade);
            });
        }
    }

    /** The attempt failed (to be retried or for good): BullMQ's {@code job failed} event with the reason. */
    static void failed(Telemetry.Span span, String reason, Throwable error, int attemptsMade) {
        if (span != null) {
            guard(() -> {
                span.addEvent("job failed", FAILED_REASON, reason);
                span.setAttribute(ATTEMPTS_MADE, attemptsMade);
                span.recordError(error);
            });
        }
    }

    /** Ends an attempt's span with BullMQ's timestamps. */
    static void endProcess(Telemetry.Span span, Job job, long now) {
        if (span == null) {
            return;
        }
        guard(() -> {
            span.setAttribute(ATTEMPT_FINISHED, now);
            if (job.processedOn() != null) {
                span.setAttribute(PROCESSED, job.processedOn().toEpochMilli());
            }
        });
        guard(span::end);
    }

    static Telemetry.Scope makeCurrent(Telemetry.Span span) {
        if (span == null) {
            return null;
        }
        try {
            return span.makeCurrent();
        } catch (RuntimeException e) {
            log.warn("telemetry: cannot make the span current", e);
            return null;
        }
    }

    static void close(Telemetry.Scope scope) {
        if (scope != null) {
            guard(scope::close);
        }
    }

    private static void guard(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("telemetry: a span call failed", e);
        }
    }
}
