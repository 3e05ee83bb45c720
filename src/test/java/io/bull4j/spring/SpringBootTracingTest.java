package io.bull4j.spring;

import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Processor;
import io.bull4j.Queue;
import io.bull4j.Telemetry;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * With an {@code OpenTelemetry} bean in the context, the auto-configuration's queues and workers trace: an add and its
 * attempt are one trace in the application's exporter. {@code bull4j.tracing.enabled=false} turns it off.
 */
class SpringBootTracingTest {
    static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean(destroyMethod = "close")
        OpenTelemetrySdk openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(EXPORTER)).build())
                    .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance())).build();
        }

        @Bean
        Processor echo() {
            return job -> "traced";
        }
    }

    private static ConfigurableApplicationContext start(String q, String... more) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "bull4j.worker.drain-delay=1s",
                        "bull4j.redis.url=" + RedisTestServer.get().bull4jUri(), "bull4j.queues=" + q,
                        "bull4j.workers.echo.queue=" + q, "bull4j.workers.echo.processor=echo")
                .properties(more).run();
    }

    @Test
    void queuesAndWorkersTraceWithTheApplicationsOpenTelemetry() throws Exception {
        String q = RedisTestServer.uniqueQueueName("spring-otel");
        try (ConfigurableApplicationContext context = start(q)) {
            assertNotNull(context.getBean(OpenTelemetry.class));
            assertEquals(1, context.getBeanNamesForType(Telemetry.class).length);
            Queue queue = context.getBean(q + "Queue", Queue.class);
            Job job = queue.add("hello", Map.of());
            TestRedis.eventually(Duration.ofSeconds(30), () -> EXPORTER.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("process " + q)), "the worker's span");
            SpanData add = span("add " + q + ".hello");
            SpanData process = span("process " + q);
            assertEquals(add.getTraceId(), process.getTraceId());
            assertEquals(add.getSpanId(), process.getParentSpanId());
            assertEquals("echo", process.getAttributes().get(
                    io.opentelemetry.api.common.AttributeKey.stringKey("bullmq.worker.name")));
            assertEquals("traced", queue.getJob(job.id()).returnValue(String.class));
        }
    }

    @Test
    void tracingCanBeTurnedOff() throws Exception {
        String q = RedisTestServer.uniqueQueueName("spring-otel-off");
        try (ConfigurableApplicationContext context = start(q, "bull4j.tracing.enabled=false")) {
            assertEquals(0, context.getBeanNamesForType(Telemetry.class).length);
            Queue queue = context.getBean(q + "Queue", Queue.class);
            Job job = queue.add("quiet", Map.of());
            TestRedis.eventually(Duration.ofSeconds(30), () -> queue.getJob(job.id()).getState()
                    == JobState.COMPLETED, "the job ran");
            assertTrue(EXPORTER.getFinishedSpanItems().stream().noneMatch(s -> s.getName().endsWith(q)),
                    "no span of this queue");
            assertFalse(TestRedis.hash(q, job.id()).get("opts").contains("\"tm\""), "no context stored");
        }
    }

    private static SpanData span(String name) {
        return EXPORTER.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " in " + EXPORTER.getFinishedSpanItems()));
    }
}
