package io.bull4j.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Registers bull4j's Micrometer binders ({@link io.bull4j.micrometer.QueueMetrics} per queue of
 * {@link Bull4jQueues}, {@link io.bull4j.micrometer.WorkerMetrics} per worker of {@link Bull4jWorkers}) with the
 * application's {@link MeterRegistry}, when Micrometer is on the class path and a {@code MeterRegistry} bean exists
 * (Boot's actuator declares one). {@code bull4j.metrics.enabled=false} turns it off.
 */
@AutoConfiguration(after = Bull4jAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, Bull4jQueues.class, Bull4jWorkers.class})
@ConditionalOnProperty(prefix = "bull4j.metrics", name = "enabled", matchIfMissing = true)
public class Bull4jMetricsAutoConfiguration {
    /** Created by Spring. */
    public Bull4jMetricsAutoConfiguration() {
    }

    @Bean
    Bull4jMeters bull4jMeters(MeterRegistry registry, Bull4jQueues queues, Bull4jWorkers workers,
            Bull4jProperties properties) {
        return new Bull4jMeters(registry, queues, workers, properties.getMetrics());
    }
}
