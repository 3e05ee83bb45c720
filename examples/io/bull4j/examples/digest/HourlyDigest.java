package io.bull4j.examples.digest;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobScheduler;
import io.bull4j.JobTemplate;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.RepeatOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.examples.ExampleRedis;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * Sends a digest of the events collected during the last hour, at the top of every hour in the team's time zone
 * (cron {@code 0 * * * *}: DST changes are followed, as BullMQ's cron-parser follows them). A job scheduler
 * creates one run per hour; any worker of the queue, bull4j's or BullMQ's, takes it. Upserting at every start is
 * safe: the scheduler is replaced, never duplicated, however many instances start.
 *
 * <p>The digest is built from what is pending when the run starts, so a missed or retried run loses nothing:
 * events stay in the inbox until a digest has taken them.
 */
public final class HourlyDigest implements AutoCloseable {
    public static final String SCHEDULER_ID = "hourly-digest";
    public static final String PATTERN = "0 * * * *";

    /** One digest as sent. */
    public record Digest(String channel, List<String> events, Instant runAt) {
    }

    private final ConcurrentLinkedQueue<String> inbox = new ConcurrentLinkedQueue<>();
    private final Consumer<Digest> sender;
    private final Queue queue;
    private final Worker worker;

    /**
     * Schedules the digest (idempotently) and starts a worker.
     *
     * @param zone the zone whose hours the digest follows
     * @param runNow also send a digest right away (BullMQ's {@code immediately}), then on every hour
     */
    public HourlyDigest(Bull4jConnection redis, String queueName, ZoneId zone, boolean runNow,
                        Consumer<Digest> sender) {
        this.sender = sender;
        this.queue = new Queue(queueName, QueueOptions.builder().connection(redis).build());
        queue.upsertJobScheduler(SCHEDULER_ID,
                RepeatOptions.builder().cron(PATTERN).tz(zone).immediately(runNow).build(),
                JobTemplate.of("digest", Map.of("channel", "#ops"), JobOptions.builder()
                        .attempts(3)                              // the mail/chat service may be briefly down
                        .removeOnComplete(KeepJobs.count(24))     // a day of finished runs is enough history
                        .build()));
        this.worker = new Worker(queueName, this::sendDigest, WorkerOptions.builder().connection(redis).build());
    }

    /** Something worth telling the team about in the next digest. */
    public void record(String event) {
        inbox.add(event);
    }

    /** The scheduler as stored in Redis (next run, runs so far). */
    public JobScheduler scheduler() {
        return queue.getJobScheduler(SCHEDULER_ID);
    }

    private Object sendDigest(Job job) {
        List<String> events = new ArrayList<>();
        for (String e = inbox.poll(); e != null; e = inbox.poll()) {
            events.add(e);
        }
        String channel = String.valueOf(job.data(Map.class).get("channel"));
        sender.accept(new Digest(channel, events, job.timestamp()));
        return events.size();
    }

    @Override
    public void close() {
        worker.close();
        queue.close();
    }

    /** Runs against REDIS_URL (or an embedded Redis) until stopped; prints each digest. */
    public static void main(String[] args) throws Exception {
        try (ExampleRedis server = ExampleRedis.start();
             Bull4jConnection redis = Bull4jConnection.create(server.uri());
             HourlyDigest digest = new HourlyDigest(redis, "digests", ZoneId.of("Europe/Berlin"), true,
                     d -> System.out.println("digest to " + d.channel() + ": " + d.events()))) {
            System.out.println("hourly digest example on " + server.describe());
            digest.record("deploy 1.4.2 finished");
            System.out.println("next digest at " + digest.scheduler().next() + "; Ctrl-C to stop");
            Thread.currentThread().join();
        }
    }
}
