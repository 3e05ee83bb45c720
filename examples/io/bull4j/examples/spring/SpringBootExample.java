package io.bull4j.examples.spring;

import io.bull4j.Job;
import io.bull4j.Queue;
import io.bull4j.examples.ExampleRedis;
import io.bull4j.spring.Bull4jWorker;
import io.bull4j.spring.Bull4jWorkers;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A Spring Boot application on bull4j's auto-configuration ({@code docs/spring-boot.md}): a {@code Signups} service
 * adds jobs to the {@code emails} queue bean (declared by {@code bull4j.queues}), a {@code Mailer} bean's
 * {@link Bull4jWorker} method processes them, the {@code bull4j} health indicator reports, and closing the context
 * closes the worker (after its running jobs), the queue and the connection, in that order.
 *
 * <p>Run it with {@code mvn -q test-compile exec:java -Dexec.mainClass=io.bull4j.examples.spring.SpringBootExample}.
 * It uses {@code REDIS_URL} or localhost:6379 when a Redis answers there, else an embedded redis-server
 * ({@link ExampleRedis}); its keys are under a prefix unique to the run, deleted at the end.
 */
@SpringBootApplication
public class SpringBootExample {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** The producer side: the application's own service, with the queue injected by its name. */
    @Service
    public static class Signups {
        private final Queue emails;

        /**
         * @param emails the queue named {@code emails} (bean {@code emailsQueue})
         */
        public Signups(@Qualifier("emails") Queue emails) {
            this.emails = emails;
        }

        /**
         * Queues the welcome mail of a new user.
         *
         * @param address the user's address
         * @return the job
         */
        public Job signedUp(String address) {
            return emails.add("welcome", Map.of("to", address));
        }
    }

    /** The consumer side: a bean method that processes the {@code emails} queue, two jobs at a time. */
    @Component
    public static class Mailer {
        /** Created by Spring. */
        public Mailer() {
        }

        /**
         * Sends one mail (here: prints it).
         *
         * @param job the job, whose data holds the address
         * @return the job's result, stored in Redis
         */
        @Bull4jWorker(queue = "emails", concurrency = 2)
        public String send(Job job) {
            String to = (String) job.data(Map.class).get("to");
            return "welcome mail sent to " + to;
        }
    }

    /**
     * Starts the application on this Redis, signs up three users, waits for their mails, prints the results and the
     * health, and closes the application.
     *
     * @param redisUri the Redis URI
     * @param out where to print
     * @return the results of the three jobs, read back from Redis
     */
    public static List<String> run(String redisUri, PrintStream out) {
        String prefix = "bull4j-spring-example-" + UUID.randomUUID().toString().substring(0, 8);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(SpringBootExample.class)
                .web(WebApplicationType.NONE)
                .properties("bull4j.redis.url=" + redisUri, "bull4j.prefix=" + prefix, "bull4j.queues=emails",
                        "bull4j.worker.drain-delay=1s", "spring.main.banner-mode=off")
                .run();
        Queue emails = context.getBean("emailsQueue", Queue.class);
        try {
            Signups signups = context.getBean(Signups.class);
            List<Job> jobs = new ArrayList<>();
            for (String address : List.of("ana@example.com", "bo@example.com", "chi@example.com")) {
                jobs.add(signups.signedUp(address));
            }
            List<String> results = new ArrayList<>();
            for (Job job : jobs) {
                Job done = job.waitUntilFinished(TIMEOUT); // follows the events stream; nothing polls
                out.println("job " + done.id() + " " + done.getState() + ": " + done.returnValue(String.class));
                results.add(done.returnValue(String.class));
            }
            Health health = context.getBean("bull4jHealthIndicator", HealthIndicator.class).health();
            out.println("health: " + health.getStatus() + " " + health.getDetails());
            return results;
        } finally {
            // the example's keys go: the workers stop first, so that none writes after the queue is obliterated
            context.getBean(Bull4jWorkers.class).stop();
            emails.obliterate(true);
            context.close();
        }
    }

    /**
     * Runs the example.
     *
     * @param args none
     * @throws Exception when it fails
     */
    public static void main(String[] args) throws Exception {
        try (ExampleRedis redis = ExampleRedis.start()) {
            System.out.println("bull4j on Spring Boot: using " + redis.describe());
            run(redis.uri(), System.out);
        }
    }
}
