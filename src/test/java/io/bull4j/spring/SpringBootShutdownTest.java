package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Closing a Spring context lets a running job finish before the shared connection closes: the job, started before
 * the close, waits until the workers' lifecycle stop has begun, then completes; its result is in Redis afterwards
 * (the finish needs the connection), and the context's connection is closed.
 */
class SpringBootShutdownTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        SlowWorker slowWorker(Bull4jWorkers workers) {
            return new SlowWorker(workers);
        }
    }

    /** A worker whose job runs on until shutdown has begun. */
    static class SlowWorker {
        final CountDownLatch started = new CountDownLatch(1);
        final Bull4jWorkers workers;
        volatile boolean sawShutdown;

        SlowWorker(Bull4jWorkers workers) {
            this.workers = workers;
        }

        @Bull4jWorker(queue = "${app.queue}", id = "slow")
        public String run(Job job) throws InterruptedException {
            started.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // bounded poll of the lifecycle state: the job goes on until the context's shutdown stops the workers
            while (workers.isRunning() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            sawShutdown = !workers.isRunning();
            return "finished after shutdown began";
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class StuckApp {
        @Bean
        StuckWorker stuckWorker() {
            return new StuckWorker();
        }
    }

    /** A worker whose job runs until it is interrupted. */
    static class StuckWorker {
        final CountDownLatch started = new CountDownLatch(1);

        @Bull4jWorker(queue = "${app.queue}", id = "stuck")
        public void run(Job job) throws InterruptedException {
            started.countDown();
            new CountDownLatch(1).await(); // until interrupted
        }
    }

    @Test
    void aJobStillRunningAfterTheShutdownPhaseTimeoutIsInterruptedAndGivenBack() throws Exception {
        String q = RedisTestServer.uniqueQueueName("spring-stuck");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(StuckApp.class)
                .web(WebApplicationType.NONE)
                .properties("bull4j.redis.url=" + RedisTestServer.get().bull4jUri(), "bull4j.queues=" + q,
                        "app.queue=" + q, "spring.lifecycle.timeout-per-shutdown-phase=1s",
                        "bull4j.worker.drain-delay=1s", "spring.main.banner-mode=off")
                .run();
        assertEquals(Duration.ofSeconds(1), context.getBean(Bull4jWorkers.class).closeTimeout());
        Job job = context.getBean(q + "Queue", Queue.class).add("stuck", Map.of());
        assertTrue(context.getBean(StuckWorker.class).started.await(WAIT.toSeconds(), TimeUnit.SECONDS));

        context.close();

        try (Queue check = new Queue(q, QueueOptions.builder().connection(TestRedis.connection()).build())) {
            Job back = check.getJob(job.id());
            assertEquals(JobState.WAITING, back.getState(), "given back for another worker, not failed");
            assertEquals(0, back.attemptsMade());
            assertEquals(0L, check.getJobCounts(JobState.ACTIVE).get(JobState.ACTIVE));
        }
    }

    @Test
    void aRunningJobFinishesBeforeTheConnectionCloses() throws Exception {
        String q = RedisTestServer.uniqueQueueName("spring-shutdown");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("bull4j.redis.url=" + RedisTestServer.get().bull4jUri(), "bull4j.queues=" + q,
                        "app.queue=" + q, "spring.lifecycle.timeout-per-shutdown-phase=20s",
                        "bull4j.worker.drain-delay=1s", "spring.main.banner-mode=off")
                .run();
        Bull4jConnection connection = context.getBean(Bull4jConnection.class);
        Queue queue = context.getBean(q + "Queue", Queue.class);
        SlowWorker worker = context.getBean(SlowWorker.class);
        assertEquals(Duration.ofSeconds(20), context.getBean(Bull4jWorkers.class).closeTimeout(),
                "the close timeout follows spring.lifecycle.timeout-per-shutdown-phase");
        Job job = queue.add("long", Map.of());
        assertTrue(worker.started.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the job started");

        context.close();

        assertTrue(worker.sawShutdown, "the job was still running when the workers were stopped");
        try (Queue check = new Queue(q, QueueOptions.builder().connection(TestRedis.connection()).build())) {
            Job done = check.getJob(job.id());
            assertEquals(JobState.COMPLETED, done.getState());
            assertEquals("finished after shutdown began", done.returnValue(String.class));
            assertEquals(0L, check.getJobCounts(JobState.ACTIVE).get(JobState.ACTIVE));
        }
        assertThrows(RuntimeException.class, queue::count, "the context's queues are closed");
        assertThrows(RuntimeException.class,
                () -> new Queue(q, QueueOptions.builder().connection(connection).build()).count(),
                "the context's connection is closed");
    }
}
