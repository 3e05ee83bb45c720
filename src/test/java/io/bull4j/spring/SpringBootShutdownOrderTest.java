package io.bull4j.spring;

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

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * docs/spring-boot.md: "The queues and then the connection are closed only after every worker has closed, even when
 * that takes longer than the phase timeout". A job that runs past the phase timeout (within its worker's
 * close-timeout) and then adds a follow-up job to a Queue bean, in a context where a bean that uses the workers is
 * created before the queues: Spring destroys beans in the reverse order of their creation, so without declared
 * dependencies the queues closed under the running job, which then failed ("queue ... is closed").
 */
class SpringBootShutdownOrderTest {
    /** An admin component that lists the workers (declared before the processor, as scanning order may do). */
    static class Admin {
        Admin(Bull4jWorkers workers) {
        }
    }

    static class Chain {
        static final CountDownLatch started = new CountDownLatch(1);
        static volatile Throwable failure;
        final Queue next;

        Chain(Queue next) {
            this.next = next;
        }

        @Bull4jWorker(queue = "${app.queue}", id = "chain")
        public String run(Job job) throws Exception {
            started.countDown();
            Thread.sleep(3000); // the job's work: past the 1 s phase timeout, within the worker's 10 s close-timeout
            try {
                next.add("follow-up", Map.of());
            } catch (Throwable t) {
                failure = t;
                throw t;
            }
            return "chained";
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Admin admin(Bull4jWorkers workers) {
            return new Admin(workers);
        }

        @Bean
        Chain chain(Bull4jQueues queues, org.springframework.core.env.Environment env) {
            return new Chain(queues.get(env.getProperty("app.next")));
        }
    }

    @Test
    void queuesStayOpenUntilEveryWorkerHasClosed() throws Exception {
        String q = RedisTestServer.uniqueQueueName("order-first");
        String next = RedisTestServer.uniqueQueueName("order-next");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("bull4j.redis.url=" + RedisTestServer.get().bull4jUri(), "bull4j.queues=" + q,
                        "app.queue=" + q, "app.next=" + next, "spring.lifecycle.timeout-per-shutdown-phase=1s",
                        "bull4j.workers.chain.close-timeout=10s", "bull4j.worker.drain-delay=1s",
                        "spring.main.banner-mode=off")
                .run();
        Job job = context.getBean(q + "Queue", Queue.class).add("first", Map.of());
        assertTrue(Chain.started.await(30, TimeUnit.SECONDS));
        context.close();
        try (Queue check = new Queue(q, QueueOptions.builder().connection(TestRedis.connection()).build());
             Queue checkNext = new Queue(next, QueueOptions.builder().connection(TestRedis.connection()).build())) {
            Job after = check.getJob(job.id());
            assertNull(Chain.failure, "the follow-up add failed during shutdown");
            assertEquals(JobState.COMPLETED, after.getState());
            assertEquals(1, checkNext.count());
        }
    }
}
