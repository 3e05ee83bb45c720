package io.bull4j.support;

import io.bull4j.Bull4jConnection;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A child JVM for crash tests: a bull4j Worker whose processor announces the job on stdout and then never
 * returns, so the test can SIGKILL this process mid-job.
 * Args: redisUri queueName lockDurationMs stalledIntervalMs
 */
public final class HangingWorkerMain {
    public static void main(String[] args) throws Exception {
        Bull4jConnection redis = Bull4jConnection.create(args[0]);
        WorkerOptions opts = WorkerOptions.builder().connection(redis)
                .lockDuration(Duration.ofMillis(Long.parseLong(args[2])))
                .stalledInterval(Duration.ofMillis(Long.parseLong(args[3])))
                .build();
        CountDownLatch never = new CountDownLatch(1);
        new Worker(args[1], job -> {
            System.out.println("STARTED " + job.id() + " " + job.token());
            System.out.flush();
            never.await();
            return null;
        }, opts);
        never.await();
    }
}
