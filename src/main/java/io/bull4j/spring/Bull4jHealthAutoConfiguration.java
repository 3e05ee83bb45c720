package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Declares bull4j's Actuator health indicator, {@code bull4j} in {@code /actuator/health}, when Boot's health module
 * is on the class path ({@code spring-boot-starter-actuator} brings it): Redis reachable, the workers running, and a
 * warning detail when Redis's {@code maxmemory-policy} is not {@code noeviction}.
 * {@code management.health.bull4j.enabled=false} turns it off.
 */
@AutoConfiguration(after = Bull4jAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(Bull4jConnection.class)
@ConditionalOnEnabledHealthIndicator("bull4j")
public class Bull4jHealthAutoConfiguration {
    /** Created by Spring. */
    public Bull4jHealthAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(name = "bull4jHealthIndicator")
    HealthIndicator bull4jHealthIndicator(Bull4jConnection connection, ObjectProvider<Bull4jWorkers> workers) {
        return new Bull4jHealthIndicator(connection, workers.getIfAvailable());
    }
}
