package io.bull4j.interop;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.Bull4jConnection;
import io.bull4j.QueueOptions;
import io.bull4j.WorkerOptions;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.codec.Utf16;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Plumbing for the data interop suite: the test Redis, runs of src/test/node/interop-data.mjs (the real bullmq),
 * JSON helpers, Redis state readers and bounded waits. Every command goes to the script as
 * {@code <command> <redisUrl> <queue> args...}; non-string args are sent as JSON, through a file when large.
 */
final class InteropKit {
    static final Duration NODE = Duration.ofSeconds(60);
    static final Duration WAIT = Duration.ofSeconds(20);
    static final ObjectMapper JSON = Json.DEFAULT;
    private static final String SCRIPT = "interop-data.mjs";
    private static final int ARG_LIMIT = 64 * 1024; // below Linux's 128 KB per argument

    private InteropKit() {
    }

    static Bull4jConnection connection() {
        return TestRedis.connection();
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

    /** Locks of 5 s leave renewal slack on a loaded 2-core machine; a short drain delay keeps close prompt. */
    static WorkerOptions.Builder workerOptions() {
        return WorkerOptions.builder().connection(connection()).drainDelay(Duration.ofSeconds(1))
                .lockDuration(Duration.ofSeconds(5));
    }

    // ---- node ----

    /** Runs a command to its end and returns its JSON lines. */
    static List<JsonNode> node(String command, String queue, Object... args) {
        return NodeBullmq.run(NODE, argv(command, queue, args));
    }

    /** Starts a long-running command (work); read its lines with {@link NodeProcess#awaitLine}. */
    static NodeProcess nodeStart(String command, String queue, Object... args) {
        return NodeBullmq.start(argv(command, queue, args));
    }

    /**
     * Runs a bullmq worker (the {@code work} command) until {@code spec.count} jobs finished; returns the finished
     * jobs in the order their processor started (the {@code seq} bullmq's worker gave them).
     */
    static List<JsonNode> work(String queue, Map<String, Object> spec) {
        List<JsonNode> done = new ArrayList<>();
        for (JsonNode l : node("work", queue, spec)) {
            if (l.has("id")) {
                done.add(l);
            }
        }
        done.sort(Comparator.comparingInt(l -> l.get("seq").asInt()));
        return done;
    }

    /** The names of the jobs a {@link #work} run finished, in the order it started them. */
    static List<String> names(List<JsonNode> finished) {
        return finished.stream().map(l -> l.get("name").asText()).toList();
    }

    /** The lines of a node work run that are finished jobs (not the ready line), by job id. */
    static Map<String, JsonNode> finishedById(List<JsonNode> lines) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode l : lines) {
            if (l.has("id")) {
                out.put(l.get("id").asText(), l);
            }
        }
        return out;
    }

    /** Reads lines from a running node worker until {@code count} jobs finished; returns them in finish order. */
    static List<JsonNode> awaitFinished(NodeProcess p, int count) {
        List<JsonNode> out = new ArrayList<>();
        while (out.size() < count) {
            JsonNode l = p.awaitLine(WAIT);
            if (l.has("id")) {
                out.add(l);
            }
        }
        return out;
    }

    private static String[] argv(String command, String queue, Object... args) {
        List<String> out = new ArrayList<>(List.of(SCRIPT, command, RedisTestServer.get().uri(), queue));
        for (Object a : args) {
            out.add(a instanceof String s ? s : viaFileIfLarge(write(a)));
        }
        return out.toArray(new String[0]);
    }

    private static String viaFileIfLarge(String json) {
        if (json.length() < ARG_LIMIT) {
            return json;
        }
        try {
            Path f = Files.createTempFile("bull4j-interop-arg-", ".json");
            f.toFile().deleteOnExit();
            Files.writeString(f, json, StandardCharsets.UTF_8);
            return "@" + f.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One job for the node add commands. */
    static Map<String, Object> job(String name, Object data, Map<String, Object> opts) {
        Map<String, Object> j = new LinkedHashMap<>();
        j.put("name", name);
        j.put("data", data);
        if (opts != null) {
            j.put("opts", opts);
        }
        return j;
    }

    static Map<String, Object> job(String name, Object data) {
        return job(name, data, null);
    }

    // ---- JSON ----

    /** As JSON.stringify writes it: lone surrogates escaped, so that they survive a command line. */
    static String write(Object value) {
        try {
            return Utf16.jsonLikeNode(JSON.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A value as the JSON tree any reader of its JSON text would build (so numbers compare by kind). */
    static JsonNode tree(Object value) {
        return parse(write(value));
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(json));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + json, e);
        }
    }

    // ---- Redis state ----

    static String key(String q, String suffix) {
        return TestRedis.key(q, suffix);
    }

    static Map<String, String> hash(String q, String jobId) {
        return TestRedis.hash(q, jobId);
    }

    static List<Map<String, String>> events(String q, String event, String jobId) {
        return TestRedis.events(q, event, jobId);
    }

    /**
     * Waits until a worker (either side: both name the connection {@code bull:<base64(queue)>}) is blocked in
     * BZPOPMIN on the queue's marker, so that what follows must wake it through the marker.
     */
    static void awaitBlockedWorker(String q) throws InterruptedException {
        String name = "name=bull:" + Base64.getEncoder().encodeToString(q.getBytes(StandardCharsets.UTF_8));
        eventually(WAIT, () -> redis().clientList().lines()
                .anyMatch(l -> l.contains(name + " ") && l.contains("cmd=bzpopmin")), "a worker blocked on " + q);
    }

    // ---- waits ----

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return TestRedis.await(f, WAIT);
    }

    /** See {@link TestRedis#eventually}. */
    static void eventually(Duration timeout, BooleanSupplier condition, String what) throws InterruptedException {
        TestRedis.eventually(timeout, condition, what);
    }
}
