package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.Processor;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Plumbing for the worker and admin interop tests against the real bullmq 6.7.0: the shared test Redis, bounded
 * waits, and the commands of src/test/node/interop-worker.mjs ({@code ops} runs Queue operations, {@code worker}
 * runs a Node Worker that fails, hangs or completes as told).
 */
final class InteropWorkerKit {
    static final Duration NODE = Duration.ofSeconds(60);
    static final Duration WAIT = Duration.ofSeconds(20);
    static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCRIPT = "interop-worker.mjs";

    private InteropWorkerKit() {
    }

    static Bull4jConnection connection() {
        return TestRedis.connection();
    }

    static String uri() {
        return RedisTestServer.get().uri();
    }

    static RedisCommands<String, String> redis() {
        return TestRedis.redis();
    }

    static String queueName(String hint) {
        return TestRedis.queueName(hint);
    }

    static QueueOptions queueOptions() {
        return QueueOptions.builder().connection(connection()).build();
    }

    /** drainDelay 1 s so an idle or paused worker polls often; the default 30 s lock. */
    static WorkerOptions.Builder workerOptions() {
        return WorkerOptions.builder().connection(connection()).drainDelay(Duration.ofSeconds(1));
    }

    // ---- Redis state ----

    static String key(String q, String suffix) {
        return TestRedis.key(q, suffix);
    }

    static Map<String, String> hash(String q, String jobId) {
        return TestRedis.hash(q, jobId);
    }

    static List<Map<String, String>> stream(String q) {
        return TestRedis.stream(q);
    }

    static List<Map<String, String>> events(String q, String event, String jobId) {
        return TestRedis.events(q, event, jobId);
    }

    /** The due time (ms) a delayed job is scheduled for: its score over 4096. */
    static long dueAt(String q, String jobId) {
        Double score = redis().zscore(key(q, "delayed"), jobId);
        if (score == null) {
            throw new AssertionError("job " + jobId + " is not in delayed");
        }
        return (long) Math.floor(score / 4096);
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- waiting ----

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return TestRedis.await(f, WAIT);
    }

    /** {@link TestRedis#eventually} for at most {@link #WAIT}. */
    static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        TestRedis.eventually(WAIT, condition, what);
    }

    // ---- bull4j side ----

    /**
     * One attempt by a bull4j Worker: the worker pauses itself as the attempt starts (so it takes neither the
     * job's next attempt nor another job), records the outcome, and is closed before {@link #run} returns.
     */
    static final class JavaAttempt {
        final CompletableFuture<Job> started = new CompletableFuture<>();
        final CompletableFuture<Job> finished = new CompletableFuture<>();
        volatile long threwAt;

        static JavaAttempt run(String q, WorkerOptions opts, Processor body) throws Exception {
            JavaAttempt a = new JavaAttempt();
            AtomicReference<Worker> self = new AtomicReference<>();
            WorkerListener outcome = new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    a.finished.complete(job);
                }

                @Override
                public void onFailed(Job job, Throwable error) {
                    a.finished.complete(job);
                }
            };
            Worker worker = new Worker(q, job -> {
                self.get().pause();
                a.started.complete(job);
                try {
                    return body.process(job);
                } catch (Exception | Error e) {
                    a.threwAt = System.currentTimeMillis();
                    throw e;
                }
            }, opts.toBuilder().autorun(false).build(), outcome);
            self.set(worker);
            try {
                worker.run();
                await(a.finished);
            } finally {
                worker.close();
            }
            return a;
        }
    }

    /**
     * Runs a bull4j Worker until {@code finals} jobs completed or failed for good (retried attempts do not count),
     * then closes it.
     */
    static void runJavaWorker(String q, int finals, Processor processor) throws Exception {
        CountDownLatch left = new CountDownLatch(finals);
        WorkerListener counter = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                left.countDown();
            }

            @Override
            public void onFailed(Job job, Throwable error) {
                if (job.finishedOn() != null) {
                    left.countDown();
                }
            }
        };
        try (Worker worker = new Worker(q, processor, workerOptions().build(), counter)) {
            if (!left.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError(left.getCount() + " of " + finals + " jobs still unfinished after " + WAIT);
            }
        }
    }

    // ---- node ----

    /** A JSON object from alternating keys and values, for specs and ops. */
    static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs bullmq Queue operations in one Node process; returns each one's result, in order. */
    static List<JsonNode> ops(String q, Map<?, ?>... ops) {
        List<JsonNode> results = new ArrayList<>();
        for (JsonNode line : NodeBullmq.run(NODE, SCRIPT, "ops", uri(), q, write(List.of(ops)))) {
            results.add(line.get("result"));
        }
        if (results.size() != ops.length) {
            throw new AssertionError("expected " + ops.length + " results from node, got " + results);
        }
        return results;
    }

    static JsonNode op(String q, Map<?, ?> op) {
        return ops(q, op).get(0);
    }

    /** Runs a Node worker to its own end (see the spec in interop-worker.mjs); returns its lines. */
    static List<JsonNode> nodeWorker(String q, Map<String, Object> spec) {
        return NodeBullmq.run(NODE, SCRIPT, "worker", uri(), q, write(spec));
    }

    /** The first line of an event (about one job unless jobId is null) among lines already read. */
    static JsonNode line(List<JsonNode> lines, String ev, String jobId) {
        return lines.stream().filter(matches(ev, jobId)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + ev + " line for job " + jobId + " in " + lines));
    }

    static Predicate<JsonNode> matches(String ev, String jobId) {
        return l -> ev.equals(l.path("ev").asText()) && (jobId == null || jobId.equals(jobIdOf(l)));
    }

    /** The job a worker line is about: job.id (start, completed, failed), id (threw) or jobId (stalled). */
    static String jobIdOf(JsonNode line) {
        for (JsonNode n : List.of(line.path("job").path("id"), line.path("id"), line.path("jobId"))) {
            if (n.isValueNode()) {
                return n.asText();
            }
        }
        return null;
    }

    /** Starts a Node worker in the background and waits until it is connected. Close it (try-with-resources). */
    static NodeWorker startNodeWorker(String q, Map<String, Object> spec) {
        NodeWorker w = new NodeWorker(NodeBullmq.start(SCRIPT, "worker", uri(), q, write(spec)));
        w.await("ready", null);
        return w;
    }

    /** A running Node worker: its lines as they come, kept so they can be searched again. */
    static final class NodeWorker implements AutoCloseable {
        private final NodeProcess process;
        private final List<JsonNode> seen = new ArrayList<>();

        NodeWorker(NodeProcess process) {
            this.process = process;
        }

        /** The first line (already seen or still to come) of this event about this job (null: any job). */
        JsonNode await(String ev, String jobId) {
            Predicate<JsonNode> match = matches(ev, jobId);
            for (JsonNode l : seen) {
                if (match.test(l)) {
                    return l;
                }
            }
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (true) {
                long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                JsonNode l = process.awaitLine(Duration.ofMillis(left));
                seen.add(l);
                if (match.test(l)) {
                    return l;
                }
            }
        }

        List<JsonNode> seen() {
            return new ArrayList<>(seen);
        }

        /** Reads lines until {@code n} lines of this event were seen in all; returns them. */
        List<JsonNode> awaitCount(String ev, int n) {
            Predicate<JsonNode> match = matches(ev, null);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (seen.stream().filter(match).count() < n) {
                long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
                seen.add(process.awaitLine(Duration.ofMillis(left)));
            }
            return seen.stream().filter(match).toList();
        }

        /** SIGKILL, as a crash. */
        void kill() {
            process.kill();
        }

        /** Waits for the worker to end by itself (its spec says when), keeps its last lines; returns the exit code. */
        int exit() {
            int code = process.waitFor(WAIT);
            while (true) {
                try {
                    seen.add(process.awaitLine(WAIT));
                } catch (IllegalStateException endOfOutput) {
                    return code;
                }
            }
        }

        String stderr() {
            return process.stderr();
        }

        @Override
        public void close() {
            process.close();
        }
    }
}
