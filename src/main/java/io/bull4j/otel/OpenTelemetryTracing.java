package io.bull4j.otel;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.Queue;
import io.bull4j.Telemetry;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * bull4j's {@link Telemetry} on OpenTelemetry, the counterpart of BullMQ's {@code bullmq-otel}: spans from the
 * {@link OpenTelemetry} given (its tracer {@value #INSTRUMENTATION_NAME}), and the trace context stored in a job as
 * {@code bullmq-otel} stores it: the fields the {@code OpenTelemetry}'s text-map propagator injects (with the W3C
 * trace-context propagator, {@code traceparent} and {@code tracestate}) as a JSON object, in the job's
 * {@code opts.tm}. So a trace started by a Node producer using BullMQ with {@code bullmq-otel} goes on in a bull4j
 * worker, and the reverse, provided both sides propagate with the same propagator (W3C trace context is the default
 * of both SDKs).
 *
 * <pre>{@code
 * Telemetry tracing = OpenTelemetryTracing.create(openTelemetry);          // or create() for GlobalOpenTelemetry
 * Queue queue = new Queue("emails", QueueOptions.builder().telemetry(tracing).build());
 * Worker worker = new Worker("emails", processor, WorkerOptions.builder().telemetry(tracing).build());
 * }</pre>
 *
 * <p>Thread-safe; share one instance. Nothing to close: the {@code OpenTelemetry} belongs to the application.
 */
public final class OpenTelemetryTracing implements Telemetry {
    /** The instrumentation scope name of bull4j's tracer. */
    public static final String INSTRUMENTATION_NAME = "io.bull4j";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> CARRIER = new TypeReference<>() { };
    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private OpenTelemetryTracing(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.tracerBuilder(INSTRUMENTATION_NAME).setInstrumentationVersion(version()).build();
        this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
    }

    /**
     * Tracing with this {@code OpenTelemetry}'s tracer and propagator.
     *
     * @param openTelemetry the application's {@code OpenTelemetry}; not null
     * @return the hook, for {@code QueueOptions.builder().telemetry(...)} and {@code WorkerOptions}'
     */
    public static OpenTelemetryTracing create(OpenTelemetry openTelemetry) {
        return new OpenTelemetryTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    /**
     * Tracing with {@link GlobalOpenTelemetry#get()}: the SDK the application (or the Java agent) registered, else a
     * no-op that records and stores nothing.
     *
     * @return the hook
     */
    public static OpenTelemetryTracing create() {
        return create(GlobalOpenTelemetry.get());
    }

    @Override
    public Span startProducer(String name) {
        return new OtelSpan(tracer.spanBuilder(name).setSpanKind(SpanKind.PRODUCER).startSpan(), Context.current());
    }

    @Override
    public Span startConsumer(String name, String parentMetadata) {
        Context parent = Context.current();
        if (parentMetadata != null) {
            Map<String, String> carrier = readCarrier(parentMetadata);
            if (carrier != null) {
                parent = propagator.extract(parent, carrier, GETTER);
            }
        }
        return new OtelSpan(tracer.spanBuilder(name).setSpanKind(SpanKind.CONSUMER).setParent(parent).startSpan(),
                parent);
    }

    /** The propagator's fields stored by a producer, or null when the text is not such a JSON object. */
    private static Map<String, String> readCarrier(String metadata) {
        try {
            return JSON.readValue(metadata, CARRIER);
        } catch (IOException | RuntimeException e) {
            return null; // not ours to fail a job over: the span starts a trace of its own
        }
    }

    private static String version() {
        try (InputStream in = Queue.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version");
            }
        } catch (IOException e) {
            // no version then
        }
        return null;
    }

    @Override
    public String toString() {
        return "OpenTelemetryTracing";
    }

    /** One span, and the context it was started in (its own context is that one with the span in it). */
    private final class OtelSpan implements Span {
        // OpenTelemetry's Span, named in full: inside this class "Span" is Telemetry.Span
        private final io.opentelemetry.api.trace.Span span;
        private final Context context;

        OtelSpan(io.opentelemetry.api.trace.Span span, Context parent) {
            this.span = span;
            this.context = parent.with(span);
        }

        @Override
        public String metadata() {
            Map<String, String> carrier = new LinkedHashMap<>();
            propagator.inject(context, carrier, Map::put);
            if (carrier.isEmpty()) {
                return null; // no propagator (the no-op OpenTelemetry) or no valid span: nothing to continue
            }
            try {
                return JSON.writeValueAsString(carrier);
            } catch (IOException e) {
                return null;
            }
        }

        @Override
        public void setAttribute(String key, String value) {
            if (value != null) {
                span.setAttribute(key, value);
            }
        }

        @Override
        public void setAttribute(String key, long value) {
            span.setAttribute(key, value);
        }

        @Override
        public void setAttribute(String key, List<String> values) {
            span.setAttribute(AttributeKey.stringArrayKey(key), values);
        }

        @Override
        public void addEvent(String name, String key, String value) {
            span.addEvent(name, value == null ? Attributes.empty() : Attributes.of(AttributeKey.stringKey(key), value));
        }

        @Override
        public void recordError(Throwable error) {
            span.recordException(error);
            span.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
        }

        @Override
        public Scope makeCurrent() {
            io.opentelemetry.context.Scope scope = context.makeCurrent();
            return scope::close;
        }

        @Override
        public void end() {
            span.end();
        }
    }
}
