package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.QueueOptions;
import io.bull4j.Telemetry;
import io.lettuce.core.RedisClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import java.time.Duration;

/**
 * The Spring Boot auto-configuration of bull4j (see {@code docs/spring-boot.md}): from the {@code bull4j.*}
 * properties ({@link Bull4jProperties}) it declares
 *
 * <ul>
 *   <li>a {@link Bull4jConnection}, shared by every queue and worker, closed last;</li>
 *   <li>{@link Bull4jQueues}, the queues by name, and a {@code Queue} bean per name in {@code bull4j.queues};</li>
 *   <li>{@link Bull4jWorkers}, which starts the workers (the application's {@code Worker} beans, its
 *       {@link Bull4jWorker} methods and {@code bull4j.workers.*}) once the context is refreshed, and closes them
 *       gracefully on shutdown.</li>
 * </ul>
 *
 * <p>Each bean backs off when the application declares its own of that type. The health indicator and the
 * Micrometer binders are in {@link Bull4jHealthAutoConfiguration} and {@link Bull4jMetricsAutoConfiguration}; a
 * {@link Telemetry} bean (the one {@link Bull4jTracingAutoConfiguration} declares for OpenTelemetry, or the
 * application's) is given to every queue and worker it builds.
 */
@AutoConfiguration
@ConditionalOnClass(RedisClient.class)
@EnableConfigurationProperties(Bull4jProperties.class)
public class Bull4jAutoConfiguration {
    /** Created by Spring. */
    public Bull4jAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Bull4jConnection bull4jConnection(Bull4jProperties properties) {
        Bull4jProperties.Redis redis = properties.getRedis();
        Duration timeout = redis.getCommandTimeout() != null ? redis.getCommandTimeout()
                : Bull4jConnection.DEFAULT_COMMAND_TIMEOUT;
        io.bull4j.ConnectionOptions options;
        try {
            options = io.bull4j.ConnectionOptions.builder().commandTimeout(timeout).build();
        } catch (io.bull4j.ValidationException e) {
            throw new IllegalStateException("bull4j.redis.command-timeout=" + timeout + " is refused: "
                    + e.getMessage(), e);
        }
        boolean cluster = !redis.getClusterNodes().isEmpty();
        try {
            return cluster ? Bull4jConnection.createCluster(redis.getClusterNodes(), options)
                    : Bull4jConnection.create(redis.getUrl(), options);
        } catch (io.bull4j.ValidationException e) {
            throw new IllegalStateException((cluster ? "bull4j.redis.cluster-nodes=" + redis.getClusterNodes()
                    : "bull4j.redis.url") + " is refused: " + e.getMessage(), e);
        }
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Bull4jQueues bull4jQueues(Bull4jConnection connection, Bull4jProperties properties,
            ObjectProvider<Telemetry> telemetry) {
        QueueOptions.Builder options = QueueOptions.builder().connection(connection)
                .telemetry(telemetry.getIfUnique());
        if (properties.getPrefix() != null) {
            options.prefix(properties.getPrefix());
        }
        return new Bull4jQueues(options.build());
    }

    @Bean
    static QueueBeanRegistrar bull4jQueueBeanRegistrar() {
        return new QueueBeanRegistrar();
    }

    @Bean
    @ConditionalOnMissingBean
    Bull4jWorkers bull4jWorkers(Bull4jConnection connection, Bull4jProperties properties, Environment environment) {
        Duration phase = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
        return new Bull4jWorkers(connection, properties, phase);
    }
}
