package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Processor;
import io.bull4j.Queue;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The auto-configuration in a {@code @SpringBootTest} on the test harness's real Redis: a queue bean per name of
 * {@code bull4j.queues}, a worker declared by properties (a {@code Processor} bean) and one by {@link Bull4jWorker},
 * jobs processed by both, the {@code bull4j} component of the health endpoint, and the Micrometer meters in the
 * registry Boot's actuator declares.
 */
@SpringBootTest(classes = SpringBootAutoConfigurationTest.App.class, properties = {
        "bull4j.worker.drain-delay=1s",
        "bull4j.metrics.refresh-interval=1s",
        "spring.main.banner-mode=off",
        "bull4j.workers.emails.concurrency=3",
        "management.endpoint.health.show-details=always",
        "spring.jmx.enabled=true",
        "management.endpoints.jmx.exposure.include=health"})
class SpringBootAutoConfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    static final String EMAILS = RedisTestServer.uniqueQueueName("spring-emails");
    static final String REPORTS = RedisTestServer.uniqueQueueName("spring-reports");
    static final String EXPORTS = RedisTestServer.uniqueQueueName("spring-exports");

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("bull4j.redis.url", () -> RedisTestServer.get().bull4jUri());
        registry.add("bull4j.queues", () -> EMAILS + "," + REPORTS);
        registry.add("bull4j.workers.reports.queue", () -> REPORTS);
        registry.add("bull4j.workers.reports.processor", () -> "reportProcessor");
        registry.add("app.emails-queue", () -> EMAILS);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Processor reportProcessor() {
            return job -> "report for " + job.data(Map.class).get("month");
        }

        @Bean
        Mailer mailer() {
            return new Mailer();
        }

        /** A worker for manual processing (no processor): never started, and no reason for DOWN. */
        @Bean
        io.bull4j.Worker exports(io.bull4j.Bull4jConnection connection) {
            return new io.bull4j.Worker(EXPORTS, io.bull4j.WorkerOptions.builder().connection(connection).build());
        }
    }

    /** A bean with an annotated worker method. */
    static class Mailer {
        @Bull4jWorker(queue = "${app.emails-queue}", id = "emails", concurrency = 1)
        public String send(Job job) {
            return "sent to " + job.data(Map.class).get("to");
        }
    }

    @Autowired
    ApplicationContext context;
    @Autowired
    Bull4jQueues queues;
    @Autowired
    Bull4jWorkers workers;
    @Autowired
    Bull4jConnection connection;
    @Autowired
    MeterRegistry registry;
    @Autowired
    HealthEndpoint health;

    @Test
    void declaresQueueBeansByNameAndQualifier() {
        Queue emails = queues.get(EMAILS);
        assertSame(emails, context.getBean(EMAILS + "Queue", Queue.class));
        assertSame(emails, BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getAutowireCapableBeanFactory(),
                Queue.class, EMAILS));
        assertSame(queues.get(REPORTS), context.getBean(REPORTS + "Queue", Queue.class));
        assertEquals(EMAILS, emails.name());
    }

    @Test
    void bothWorkersProcessJobsAndTheMetersCountThem() throws Exception {
        assertEquals(Set.of("emails", "reports", "exports"), workers.workers().keySet());
        workers.workers().values().forEach(w -> assertTrue(w.isRunning() || w.isManual(), w.queueName() + " runs"));
        Queue emails = queues.get(EMAILS);
        Queue reports = queues.get(REPORTS);
        List<Job> mails = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            mails.add(emails.add("welcome", Map.of("to", "user" + i + "@example.com")));
        }
        Job report = reports.add("monthly", Map.of("month", "2026-11"));
        TestRedis.eventually(WAIT, () -> emails.getJobCounts(JobState.COMPLETED).get(JobState.COMPLETED) == 5
                && reports.getJobCounts(JobState.COMPLETED).get(JobState.COMPLETED) == 1, "all jobs completed");
        assertEquals("sent to user3@example.com", emails.getJob(mails.get(3).id()).returnValue(String.class));
        assertEquals("report for 2026-11", reports.getJob(report.id()).returnValue(String.class));
        assertEquals("emails", TestRedis.hash(EMAILS, mails.get(0).id()).get("pb"), "processedBy is the worker id");

        // WorkerMetrics counts from listener callbacks on the worker's event thread: poll until they are in
        TestRedis.eventually(WAIT, () -> count("bull4j.jobs.completed", EMAILS) == 5
                && count("bull4j.jobs.completed", REPORTS) == 1, "completed counters");
        Counter c = registry.find("bull4j.jobs.completed").tags("queue", EMAILS, "job.name", "welcome",
                "worker", "emails").counter();
        assertNotNull(c, "tagged with queue, job name and worker id");
        assertNotNull(registry.find("bull4j.jobs.process").tags("queue", REPORTS).timer());
        // the queue gauges read the counts off the scrape thread, at most once per refresh interval: poll
        TestRedis.eventually(WAIT, () -> {
            Gauge g = registry.find("bull4j.queue.jobs").tags("queue", EMAILS, "state", "completed").gauge();
            return g != null && g.value() == 5;
        }, "the completed gauge of " + EMAILS);
    }

    private double count(String name, String queue) {
        return registry.find(name).tags("queue", queue).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Test
    void healthReportsRedisTheWorkersAndTheEvictionPolicy() {
        Map<String, Object> details = bull4jDetails();
        assertEquals("UP", status());
        assertEquals(connection.serverVersion(), details.get("redisVersion"));
        assertEquals("noeviction", details.get("maxmemoryPolicy"));
        assertFalse(details.containsKey("warning"), details::toString);
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> w = (Map<String, Map<String, Object>>) details.get("workers");
        assertEquals(Set.of("emails", "reports", "exports"), w.keySet());
        assertEquals(EMAILS, w.get("emails").get("queue"));
        assertEquals(true, w.get("emails").get("running"));
        assertEquals(true, w.get("exports").get("manual"), "a manual worker: UP all the same");
        assertEquals(false, w.get("exports").get("running"));

        var admin = RedisTestServer.get().sync();
        String before = admin.configGet("maxmemory-policy").get("maxmemory-policy");
        admin.configSet("maxmemory-policy", "allkeys-lru");
        try {
            Map<String, Object> warned = bull4jDetails();
            assertEquals("allkeys-lru", warned.get("maxmemoryPolicy"));
            assertEquals(Bull4jHealthIndicator.EVICTION_WARNING, warned.get("warning"));
            assertEquals("UP", status(), "a warning, not DOWN");
        } finally {
            admin.configSet("maxmemory-policy", before);
        }
    }

    private String status() {
        return health.healthForPath("bull4j").getStatus().getCode();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> bull4jDetails() {
        Object descriptor = health.healthForPath("bull4j");
        assertNotNull(descriptor, "the bull4j component of /actuator/health");
        return ((org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor) descriptor).getDetails();
    }
}
