package io.bull4j;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM for {@link DeadLetterCrashTest}: a worker whose every job fails for good, with a dead-letter queue, so
 * that the parent can SIGKILL it while failures and dead letters are being written.
 * Args: redisUri queueName deadLetterQueue
 */
public final class DeadLetterWorkerMain {
    private DeadLetterWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        Bull4jConnection redis = Bull4jConnection.create(args[0]);
        WorkerOptions opts = WorkerOptions.builder().connection(redis).concurrency(8).deadLetterQueue(args[2])
                .lockDuration(Duration.ofSeconds(10)).drainDelay(Duration.ofSeconds(1)).build();
        new Worker(args[1], job -> {
            throw new IllegalStateException("always fails: " + job.id());
        }, opts);
        System.out.println("READY");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
