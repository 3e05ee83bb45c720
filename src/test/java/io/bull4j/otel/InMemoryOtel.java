package io.bull4j.otel;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/** An OpenTelemetry SDK that keeps every ended span in memory (W3C trace context), and bull4j's tracing on it. */
final class InMemoryOtel implements AutoCloseable {
    final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
    final OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider)
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
    final OpenTelemetryTracing tracing = OpenTelemetryTracing.create(otel);

    @Override
    public void close() {
        provider.close();
    }
}
