package io.bull4j.spring;

import io.bull4j.Telemetry;
import io.bull4j.otel.OpenTelemetryTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Declares a {@link Telemetry} on the application's {@link OpenTelemetry} bean ({@link OpenTelemetryTracing}), which
 * {@link Bull4jAutoConfiguration} gives to every queue and worker it builds, when OpenTelemetry's API is on the class
 * path and such a bean exists (Boot's OpenTelemetry support, or the application's own). Backs off when the
 * application declares its own {@code Telemetry}; {@code bull4j.tracing.enabled=false} turns it off.
 */
@AutoConfiguration(afterName = "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration")
@ConditionalOnClass(OpenTelemetry.class)
@ConditionalOnBean(OpenTelemetry.class)
@ConditionalOnProperty(prefix = "bull4j.tracing", name = "enabled", matchIfMissing = true)
public class Bull4jTracingAutoConfiguration {
    /** Created by Spring. */
    public Bull4jTracingAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(Telemetry.class)
    Telemetry bull4jTelemetry(OpenTelemetry openTelemetry) {
        return OpenTelemetryTracing.create(openTelemetry);
    }
}
