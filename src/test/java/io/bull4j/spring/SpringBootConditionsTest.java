package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.Processor;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The auto-configuration's conventions, each in a context of its own on the harness's real Redis: the application's
 * own beans win, the health indicator and the meters can be turned off, a {@code Worker} bean is started and closed
 * by the lifecycle, mistakes in worker declarations fail the start with a message that names them, and the health
 * turns DOWN when Redis goes away.
 */
class SpringBootConditionsTest {
    private static final String[] BASE = {"spring.main.banner-mode=off", "bull4j.worker.drain-delay=1s"};

    private static ConfigurableApplicationContext startOn(String redisUri, Class<?> app, String... properties) {
        List<String> all = new ArrayList<>(List.of(BASE));
        all.add("bull4j.redis.url=" + redisUri);
        Collections.addAll(all, properties);
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE).properties(all.toArray(new String[0]))
                .run();
    }

    private static ConfigurableApplicationContext start(Class<?> app, String... properties) {
        return startOn(RedisTestServer.get().bull4jUri(), app, properties);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Plain {
    }

    /** The application's own connection, and a Worker bean of its own that the lifecycle starts. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OwnBeans {
        @Bean(destroyMethod = "close")
        Bull4jConnection myConnection() {
            return Bull4jConnection.create(RedisTestServer.get().bull4jUri());
        }

        @Bean
        Worker thumbnails(Bull4jConnection connection) {
            return new Worker(RedisTestServer.uniqueQueueName("spring-own"), (Processor) job -> "ok",
                    WorkerOptions.builder().connection(connection).autorun(false).drainDelay(Duration.ofSeconds(1))
                            .build());
        }
    }

    @Test
    void theApplicationsOwnConnectionWinsAndItsWorkerBeanIsStartedAndClosed() {
        String q = RedisTestServer.uniqueQueueName("spring-own-q");
        ConfigurableApplicationContext context = start(OwnBeans.class, "bull4j.queues=" + q);
        Worker worker;
        try {
            assertEquals(List.of("myConnection"), List.of(context.getBeanNamesForType(Bull4jConnection.class)));
            Bull4jWorkers workers = context.getBean(Bull4jWorkers.class);
            assertEquals(List.of("thumbnails"), List.copyOf(workers.workers().keySet()));
            worker = workers.workers().get("thumbnails");
            assertTrue(worker.isRunning(), "a Worker bean built with autorun(false) is started with the context");
            assertEquals(q, context.getBean(q + "Queue", Queue.class).name());
            context.pause(); // a closed Worker cannot run again, so the workers take no part in pause and restart
            assertTrue(worker.isRunning(), "context.pause() leaves the workers running");
            context.restart();
            assertTrue(worker.isRunning());
        } finally {
            context.close();
        }
        assertFalse(worker.isRunning(), "closed with the context");
    }

    @Test
    void switchingOffAnIdNoWorkerHasIsWarnedAbout() {
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try (ConfigurableApplicationContext context = start(Plain.class, "bull4j.workers.emailsender.enabled=false")) {
            assertTrue(context.containsBean("bull4jWorkers"));
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(log.contains("WARN") && log.contains("bull4j.workers.emailsender.enabled=false switches nothing off"),
                log);
    }

    @Test
    void theHealthIndicatorAndTheMetersCanBeTurnedOff() {
        try (ConfigurableApplicationContext on = start(Plain.class)) {
            assertTrue(on.containsBean("bull4jHealthIndicator"));
            assertTrue(on.containsBean("bull4jMeters"));
        }
        try (ConfigurableApplicationContext off = start(Plain.class, "management.health.bull4j.enabled=false",
                "bull4j.metrics.enabled=false")) {
            assertFalse(off.containsBean("bull4jHealthIndicator"));
            assertFalse(off.containsBean("bull4jMeters"));
            assertTrue(off.containsBean("bull4jWorkers"));
        }
    }

    /** A worker method with the wrong parameter. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class BadMethod {
        @Bean
        Object badWorker() {
            return new Object() {
                @Bull4jWorker(queue = "whatever")
                public void handle(String notAJob) {
                }
            };
        }
    }

    /** Two annotated workers with one id. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SameId {
        @Bean
        Object twice() {
            return new Object() {
                @Bull4jWorker(queue = "same-id-a", id = "same")
                public void a(Job job) {
                }

                @Bull4jWorker(queue = "same-id-b", id = "same")
                public void b(Job job) {
                }
            };
        }
    }

    @Test
    void mistakesInWorkerDeclarationsFailTheStartAndNameTheirCause() {
        assertStartFails(BadMethod.class, "must take one parameter, an io.bull4j.Job");
        assertStartFails(SameId.class, "another worker has the id 'same'");
        assertStartFails(Plain.class, "bull4j.workers.orphan.processor is not set", "bull4j.workers.orphan.concurrency=2");
        assertStartFails(Plain.class, "bull4j.workers.x.processor: no bean named 'missing'",
                "bull4j.workers.x.processor=missing");
    }

    /** One annotated worker, for the worker settings to apply to. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class OneWorker {
        @Bean
        Object oneWorker() {
            return new Object() {
                @Bull4jWorker(queue = "one-worker", id = "one")
                public String handle(Job job) {
                    return "ok";
                }
            };
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class BadLockDuration {
        @Bean
        Object badLock() {
            return new Object() {
                @Bull4jWorker(queue = "bad-lock", lockDuration = "30 seconds")
                public String handle(Job job) {
                    return "ok";
                }
            };
        }
    }

    /** A value bull4j refuses (not one Spring cannot convert) names the property, or the annotated method. */
    @Test
    void refusedSettingsFailTheStartAndNameTheProperty() {
        assertStartFails(OneWorker.class, "bull4j.worker.concurrency=0 is refused", "bull4j.worker.concurrency=0");
        assertStartFails(OneWorker.class, "bull4j.workers.one.concurrency=-1 is refused",
                "bull4j.workers.one.concurrency=-1");
        assertStartFails(OneWorker.class, "bull4j.worker.lock-duration=PT0S is refused",
                "bull4j.worker.lock-duration=0s");
        assertStartFails(BadLockDuration.class, "lockDuration \"30 seconds\" is refused");
        assertStartFails(Plain.class, "bull4j.redis.url is refused", "bull4j.redis.url=localhost:6379");
        assertStartFails(Plain.class, "bull4j.redis.command-timeout=PT0S is refused",
                "bull4j.redis.command-timeout=0s");
        assertStartFails(Plain.class, "bull4j.metrics.refresh-interval=PT-1S is refused",
                "bull4j.metrics.refresh-interval=-1s", "bull4j.queues=refused-metrics");
    }

    private static void assertStartFails(Class<?> app, String message, String... properties) {
        RuntimeException e = assertThrows(RuntimeException.class, () -> start(app, properties).close());
        StringBuilder causes = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            causes.append(t.getMessage()).append('\n');
        }
        assertTrue(causes.toString().contains(message), causes::toString);
    }

    @Test
    void healthIsDownWhileRedisIsDown() throws Exception {
        try (RedisTestServer server = RedisTestServer.startDedicated()) {
            ConfigurableApplicationContext context = startOn(server.bull4jUri(), Plain.class,
                    "bull4j.redis.command-timeout=2s");
            try {
                HealthIndicator indicator = context.getBean("bull4jHealthIndicator", HealthIndicator.class);
                assertEquals(Status.UP, indicator.health().getStatus());
                server.stop();
                Health down = indicator.health();
                assertEquals(Status.DOWN, down.getStatus(), down::toString);
                assertTrue(down.getDetails().containsKey("error"), down::toString);
            } finally {
                context.close();
            }
        }
    }
}
