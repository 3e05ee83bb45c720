package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.internal.codec.Json;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plumbing for the observability interop suite: runs of src/test/node/interop-observability.mjs (the real bullmq)
 * and a bull4j worker whose clock the jobs set, as the Node side's is.
 */
final class ObservabilityKit {
    private static final Duration NODE = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SCRIPT = "interop-observability.mjs";

    private ObservabilityKit() {
    }

    /** Runs a command to its end and returns its one JSON line (the last, for work). */
    static JsonNode bullmq(String command, String queue, Object args) {
        List<JsonNode> lines = NodeBullmq.run(NODE, argv(command, queue, args));
        return lines.isEmpty() ? null : lines.get(lines.size() - 1);
    }

    /** Starts a long-running command; it ends when its stdin closes ({@link NodeProcess#close}). */
    static NodeProcess bullmqStart(String command, String queue, Object args) {
        return NodeBullmq.start(argv(command, queue, args));
    }

    private static String[] argv(String command, String queue, Object args) {
        String json = args == null ? "{}" : args instanceof String s ? s : Json.write(Json.DEFAULT, args, "args");
        return new String[] {SCRIPT, command, RedisTestServer.get().uri(), queue, json};
    }

    /**
     * Runs a bull4j worker with metrics until {@code finals} more jobs finished for good (completed, or failed with
     * no attempt left), each job setting the worker's clock to its {@code at} before it finishes; fails on
     * {@code fail: true}. The same processor as the node {@code work} command.
     */
    static void javaWork(String q, int maxDataPoints, int finals) throws InterruptedException {
        SetClock clock = new SetClock();
        try (Queue queue = new Queue(q, InteropKit.queueOptions())) {
            long before = finished(queue);
            WorkerOptions opts = InteropKit.workerOptions().clock(clock).metrics(maxDataPoints).build();
            Worker worker = new Worker(q, (Job job) -> {
                Map<?, ?> d = job.data(Map.class);
                if (d.get("at") instanceof Number at) {
                    clock.set(at.longValue());
                }
                if (Boolean.TRUE.equals(d.get("fail"))) {
                    throw new IllegalStateException("failed on purpose");
                }
                return "ok";
            }, opts);
            try {
                TestRedis.eventually(WAIT, () -> finished(queue) - before == finals, finals + " jobs finished");
            } finally {
                worker.close();
            }
        }
    }

    private static long finished(Queue queue) {
        return queue.getJobCounts(JobState.COMPLETED, JobState.FAILED).values().stream().mapToLong(Long::longValue)
                .sum();
    }

    /** A clock at real time until a job sets it; then it stands at that time. */
    static final class SetClock extends Clock {
        private final AtomicLong fixed = new AtomicLong(-1);

        void set(long millis) {
            fixed.set(millis);
        }

        @Override
        public long millis() {
            long f = fixed.get();
            return f < 0 ? System.currentTimeMillis() : f;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
