/**
 * OpenTelemetry tracing of bull4j queues and workers: {@link io.bull4j.otel.OpenTelemetryTracing}, the
 * {@link io.bull4j.Telemetry} to give to {@code QueueOptions} and {@code WorkerOptions}. Spans and the trace context
 * stored in jobs are BullMQ 6.7.0's (with {@code bullmq-otel}), so traces cross between Node and Java services.
 * OpenTelemetry's API ({@code io.opentelemetry:opentelemetry-api}) is an optional dependency of bull4j: add it to use
 * this package; without it nothing here is loaded and bull4j runs the same. The span names and attributes are listed
 * in {@code docs/observability.md}.
 */
package io.bull4j.otel;
