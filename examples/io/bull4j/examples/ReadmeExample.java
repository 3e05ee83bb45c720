package io.bull4j.examples;

import io.bull4j.Backoff;
import io.bull4j.Bull4jConnection;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.util.Map;

/** The README's example, kept here so that the build proves it compiles. Not meant to be run. */
final class ReadmeExample {
    record Email(String to) {
    }

    interface Mailer {
        String send(Email email) throws Exception;
    }

    private ReadmeExample() {
    }

    static void example(Mailer mailer) {
        // --- as in README.md ---
        try (Bull4jConnection redis = Bull4jConnection.create("redis://localhost:6379");
             Queue queue = new Queue("emails", QueueOptions.builder().connection(redis).build())) {
            queue.add("welcome", Map.of("to", "ana@example.com"),
                    JobOptions.builder().attempts(3).backoff(Backoff.exponential(Duration.ofSeconds(1))).build());

            Worker worker = new Worker("emails", job -> mailer.send(job.data(Email.class)), // result is stored
                    WorkerOptions.builder().connection(redis).concurrency(10).build());
            // nothing to store? a block without return: job -> { mailer.sendNoReply(job.data(Email.class)); }
            // ... later, on shutdown:
            worker.close();   // stops fetching and waits for the running jobs
        }
    }
}
