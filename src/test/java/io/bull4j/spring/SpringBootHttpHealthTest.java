package io.bull4j.spring;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Bull4jConnection;
import io.bull4j.Processor;
import io.bull4j.internal.codec.Json;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code /actuator/health} over real HTTP: an application on an embedded Tomcat at a random port, with bull4j's
 * auto-configuration on the test Redis and one worker declared by properties, read with the JDK's HTTP client, as a
 * load balancer or Kubernetes probe reads it.
 */
@SpringBootTest(classes = SpringBootHttpHealthTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "spring.main.banner-mode=off",
                "bull4j.worker.drain-delay=1s",
                "management.endpoint.health.show-details=always",
                "management.endpoints.web.exposure.include=health"})
class SpringBootHttpHealthTest {
    static final String QUEUE = RedisTestServer.uniqueQueueName("spring-http");

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("bull4j.redis.url", () -> RedisTestServer.get().bull4jUri());
        registry.add("bull4j.queues", () -> QUEUE);
        registry.add("bull4j.workers.pings.queue", () -> QUEUE);
        registry.add("bull4j.workers.pings.processor", () -> "pingProcessor");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Processor pingProcessor() {
            return job -> "pong";
        }
    }

    @Value("${local.server.port}")
    int port;
    @Autowired
    Bull4jConnection connection;
    @Autowired
    ApplicationContext context;

    @Test
    void healthOverHttpShowsTheBull4jComponentUpWithItsDetails() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                .timeout(Duration.ofSeconds(30)).header("Accept", "application/json").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").contains("json"), response.headers()
                .toString());
        JsonNode body = Json.tree(response.body());
        assertEquals("UP", body.path("status").asText(), response.body());
        JsonNode bull4j = body.path("components").path("bull4j");
        assertEquals("UP", bull4j.path("status").asText(), response.body());
        JsonNode details = bull4j.path("details");
        assertEquals(connection.serverVersion(), details.path("redisVersion").asText(), response.body());
        assertEquals("noeviction", details.path("maxmemoryPolicy").asText());
        assertFalse(details.has("warning"), response.body());
        JsonNode pings = details.path("workers").path("pings");
        assertEquals(QUEUE, pings.path("queue").asText(), response.body());
        assertTrue(pings.path("running").asBoolean(), response.body());
        assertEquals(0, pings.path("activeJobs").asInt(-1), response.body()); // idle: the blocking fetch is no job
        assertFalse(pings.path("paused").asBoolean(true), response.body());
        assertEquals(0, context.getBeanNamesForType(io.bull4j.Telemetry.class).length,
                "no OpenTelemetry bean, so no tracing (SpringBootTracingTest has one)");
    }
}
