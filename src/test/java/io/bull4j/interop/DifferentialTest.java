package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bull4j.Bull4jConnection;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The differential comparison (issue 14): each scenario of {@code src/test/resources/differential} runs with the
 * real bullmq alone (the control, three times, which must agree), then with a bull4j producer and a bullmq
 * worker, a bullmq producer and a bull4j worker, and bull4j alone. Every run starts on an empty Redis; its
 * whole normalized state ({@link RedisSnapshot}) must equal the control's, and bull4j's API must read the
 * control's state as bullmq's does.
 *
 * <p>A scenario may list differences documented in docs/compatibility.md
 * ({@link DifferentialScenario#knownDifferences}); a run of that mix must then differ at exactly those paths, so a
 * documented difference neither spreads nor silently goes away.
 *
 * <p>The scenarios run on {@link #LANES} lanes at once (-Ddifferential.lanes=N), each with a Redis server, a Node
 * process ({@code differential.mjs}, fed one step at a time) and a bull4j connection of its own; a lane takes the
 * next scenario when it is done with one. Why: a run mostly waits (for timers, backoffs, events), and one lane left
 * the machine idle for most of the class's three minutes. The dynamic tests report each lane's outcomes as they come.
 * JUnit's timeouts do not reach dynamic tests, so every step is bounded itself (a Node answer within {@link #STEP},
 * a Java work step within 30 s), and every outcome must be in within {@link #OUTCOME_BOUND} of the lanes' start.
 */
class DifferentialTest {
    private static final String QUEUE = "diff";
    private static final Duration STEP = Duration.ofSeconds(45);
    private static final int CONTROL_RUNS = 3;
    private static final int LANES = Integer.getInteger("differential.lanes", 3);
    /** How long after the lanes start every outcome must be in: every step below is bounded, this only stops a hang. */
    private static final Duration OUTCOME_BOUND = Duration.ofMinutes(15);
    private static long outcomeDeadline;
    private static final String BULLMQ_READS = "api read by bullmq: ";
    private static final String BULL4J_READS = "api read by bull4j: ";

    private static final List<Lane> lanes = new ArrayList<>();
    private static ExecutorService laneThreads;
    /** Each scenario's five outcomes, in the order of {@link #TESTS}, completed by the lane that ran it. */
    private static final Map<String, List<CompletableFuture<Void>>> outcomes = new LinkedHashMap<>();
    private static final List<String> TESTS = List.of("bullmq alone x" + CONTROL_RUNS + " (control)",
            "bull4j's API reads the control's state as bullmq's does", "bull4j producer, bullmq worker",
            "bullmq producer, bull4j worker", "bull4j alone");

    enum Side { NODE, JAVA }

    @BeforeAll
    static void start() {
        NodeBullmq.assumeAvailable();
        // -Ddifferential.only=<part of a name>[,<part>...] runs the matching scenarios alone (when working on some)
        List<String> only = List.of(System.getProperty("differential.only", "").split(","));
        ConcurrentLinkedQueue<DifferentialScenario> todo = new ConcurrentLinkedQueue<>();
        for (DifferentialScenario s : DifferentialScenario.loadAll()) {
            if (only.stream().anyMatch(s.name()::contains)) {
                todo.add(s);
                outcomes.put(s.name(), Stream.generate(CompletableFuture<Void>::new).limit(TESTS.size()).toList());
            }
        }
        outcomeDeadline = System.nanoTime() + OUTCOME_BOUND.toNanos();
        int n = Math.max(1, Math.min(LANES, todo.size()));
        laneThreads = Executors.newFixedThreadPool(n, r -> new Thread(r, "differential-lane"));
        for (int i = 0; i < n; i++) {
            Lane lane = new Lane();
            lanes.add(lane);
            laneThreads.submit(() -> lane.runAll(todo));
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (laneThreads != null) {
            laneThreads.shutdownNow();
            laneThreads.awaitTermination(STEP.toSeconds(), TimeUnit.SECONDS);
        }
        lanes.forEach(Lane::close);
    }

    @TestFactory
    Stream<DynamicContainer> scenarios() {
        return outcomes.entrySet().stream().map(e -> DynamicContainer.dynamicContainer(e.getKey(),
                IntStream.range(0, TESTS.size()).mapToObj(i -> DynamicTest.dynamicTest(TESTS.get(i),
                        () -> outcome(e.getKey(), e.getValue().get(i))))));
    }

    /** Waits for one outcome of a lane and reports it as this test's. */
    private static void outcome(String scenario, CompletableFuture<Void> outcome) throws Throwable {
        try {
            outcome.get(Math.max(0, outcomeDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause();
        } catch (TimeoutException e) {
            fail(scenario + ": no outcome within " + OUTCOME_BOUND + " of the lanes' start (a lane is stuck)");
        }
    }

    /** Runs one of the five tests, completing its outcome; a failure is reported by the test, the lane goes on. */
    private static void record(CompletableFuture<Void> outcome, ThrowingRunnable test) {
        try {
            test.run();
            outcome.complete(null);
        } catch (Throwable t) {
            outcome.completeExceptionally(t);
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Throwable;
    }

    private static String name(Side side) {
        return side == Side.JAVA ? "bull4j" : "bullmq";
    }

    /** A Redis server, a bullmq Node process and a bull4j connection, which run scenarios one after another. */
    private static final class Lane {
        private final RedisTestServer server;
        private final RedisClient bytesClient;
        private final StatefulRedisConnection<byte[], byte[]> bytes;
        private final Bull4jConnection connection;
        private final DifferentialJavaSide java;
        private final NodeProcess node;
        private final Map<String, TreeMap<String, String>> controls = new HashMap<>();

        Lane() {
            server = RedisTestServer.startDedicated();
            bytesClient = RedisClient.create(server.uri());
            bytes = bytesClient.connect(ByteArrayCodec.INSTANCE);
            connection = Bull4jConnection.create(server.bull4jUri());
            java = new DifferentialJavaSide(connection, server.sync());
            node = NodeBullmq.start("differential.mjs");
        }

        void close() {
            node.close();
            connection.close();
            bytes.close();
            bytesClient.shutdown();
            server.close();
        }

        /** Takes scenarios until none is left; each one's five tests in order, each recorded. */
        void runAll(ConcurrentLinkedQueue<DifferentialScenario> todo) {
            for (DifferentialScenario s; !Thread.currentThread().isInterrupted() && (s = todo.poll()) != null; ) {
                DifferentialScenario scenario = s;
                List<CompletableFuture<Void>> out = outcomes.get(s.name());
                record(out.get(0), () -> control(scenario));
                record(out.get(1), () -> readsAgree(scenario, controls.get(scenario.name())));
                record(out.get(2), () -> compare(scenario, Side.JAVA, Side.NODE));
                record(out.get(3), () -> compare(scenario, Side.NODE, Side.JAVA));
                record(out.get(4), () -> compare(scenario, Side.JAVA, Side.JAVA));
            }
        }

        /** Runs the control until it agrees with itself; only then is it trusted. */
        private void control(DifferentialScenario s) throws Exception {
            TreeMap<String, String> first = run(s, Side.NODE, Side.NODE);
            for (int i = 2; i <= CONTROL_RUNS; i++) {
                Map<String, String> d = RedisSnapshot.diff(first, run(s, Side.NODE, Side.NODE), "control run 1",
                        "control run " + i);
                if (!d.isEmpty()) {
                    fail(s.name() + ": the control (bullmq alone) is not deterministic, " + d.size()
                            + " difference(s):\n  " + String.join("\n  ", d.values()));
                }
            }
            controls.put(s.name(), first);
            if (Boolean.getBoolean("differential.print")) { // -Ddifferential.print=true shows what is compared
                StringBuilder text = new StringBuilder("== " + s.name() + "\n");
                first.forEach((path, value) -> text.append(path).append(" = ").append(value).append('\n'));
                System.out.print(text);
            }
        }

        private void compare(DifferentialScenario s, Side producer, Side worker) throws Exception {
            TreeMap<String, String> control = controls.get(s.name());
            assertNotNull(control, s.name() + ": no trusted control run (see its control test)");
            String mix = name(producer) + " -> " + name(worker);
            Map<String, String> d = RedisSnapshot.diff(control, run(s, producer, worker), "bullmq", mix);
            Set<String> known = s.knownDifferences(mix);
            if (!d.keySet().equals(known)) {
                String expected = known.isEmpty() ? "" : " (documented differences expected at exactly " + known + ")";
                fail(s.name() + " [" + mix + "]: " + d.size() + " difference(s) from bullmq alone" + expected + ":\n  "
                        + String.join("\n  ", d.values()));
            }
        }

        /** One run on an empty database: producer steps by {@code producer}, work steps by {@code worker}. */
        private TreeMap<String, String> run(DifferentialScenario s, Side producer, Side worker) throws Exception {
            try {
                return runSteps(s, producer, worker);
            } catch (Throwable t) {
                abandon();
                throw t;
            }
        }

        /**
         * After a failed run, so that the lane's next runs fail for their own causes, if any: closes a worker still
         * running on either side, and reads past the answers the Node process still owed the failed run.
         */
        private void abandon() {
            try {
                java.abandonBackground();
            } catch (RuntimeException e) {
                System.err.println("differential: closing bull4j's worker after a failed run: " + e);
            }
            try {
                node.send(InteropKit.JSON.createObjectNode().put("abandon", true).toString());
                long deadline = System.nanoTime() + STEP.toNanos();
                while (!node.awaitLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime()))).has("abandoned")) {
                    // an answer owed to the failed run: dropped
                }
            } catch (RuntimeException e) {
                System.err.println("differential: closing bullmq's worker after a failed run: " + e);
            }
        }

        private TreeMap<String, String> runSteps(DifferentialScenario s, Side producer, Side worker) throws Exception {
            bytes.sync().flushall();
            long start = System.currentTimeMillis();
            for (int i = 0; i < s.stepCount(); i++) {
                String kind = s.kind(i);
                Side side = kind.equals("work") || kind.equals("awaitWork") || kind.equals("manual") ? worker : producer;
                if (kind.equals("awaitEvent")) {
                    awaitEvent(s, s.step(i));
                } else if (side == Side.JAVA) {
                    java.run(s, i, QUEUE);
                } else {
                    runOnNode(s, i);
                }
            }
            RedisSnapshot taken = RedisSnapshot.taken(bytes.sync(), start, System.currentTimeMillis(), s.perJobOrder());
            TreeMap<String, String> snapshot = taken.state();
            // after the snapshot: opening a Queue may write the queue's meta. The reads ask for the ids as stored and
            // are written as the snapshot writes them (a scheduler run's time by its label)
            Map<String, String> ids = new TreeMap<>();
            jobIds(snapshot).forEach(id -> ids.put(taken.rawId(id), id));
            List<String> raw = List.copyOf(ids.keySet());
            readOnNode(raw).forEach((k, v) -> snapshot.put(BULLMQ_READS + normalizedRead(k, v, ids, taken),
                    normalizedValue(k, v, taken)));
            java.read(QUEUE, raw).forEach((k, v) -> snapshot.put(BULL4J_READS + normalizedRead(k, v, ids, taken),
                    normalizedValue(k, v, taken)));
            if (worker == Side.JAVA) {
                java.finishBackground();
            } else {
                node.send(InteropKit.JSON.createObjectNode().put("finish", true).toString());
                JsonNode answer = node.awaitLine(STEP);
                if (!answer.has("finished")) {
                    fail(s.name() + ": bullmq's worker did not finish: " + answer.path("error").asText(answer.toString()));
                }
            }
            return snapshot;
        }

        /** Waits (bounded) until the events stream holds the event {@code {event, jobId}}: a point in the run. */
        private void awaitEvent(DifferentialScenario s, JsonNode step) throws InterruptedException {
            String event = step.get("event").asText();
            String jobId = step.path("jobId").asText(null);
            TestRedis.eventually(STEP, () -> server.sync().xrange(TestRedis.key(QUEUE, "events"), Range.create("-", "+"))
                    .stream().map(StreamMessage::getBody)
                    .anyMatch(e -> event.equals(e.get("event")) && (jobId == null || jobId.equals(e.get("jobId")))),
                    s.name() + ": event " + step);
        }

        private Map<String, String> readOnNode(List<String> jobIds) {
            ObjectNode cmd = InteropKit.JSON.createObjectNode().put("url", server.uri()).put("queue", QUEUE);
            jobIds.forEach(cmd.putArray("read")::add);
            node.send(cmd.toString());
            JsonNode answer = node.awaitLine(STEP);
            if (!answer.has("read")) {
                fail("bullmq could not read the queue: " + answer.path("error").asText(answer.toString()));
            }
            Map<String, String> out = new TreeMap<>();
            Map<String, Long> counts = new TreeMap<>();
            JsonNode read = answer.get("read");
            read.get("counts").fields().forEachRemaining(e -> counts.put(e.getKey(), e.getValue().asLong()));
            out.put("counts", counts.toString());
            read.get("states").fields().forEachRemaining(e -> out.put("state " + e.getKey(), e.getValue().asText()));
            for (JsonNode sc : read.get("schedulers")) {
                out.put("scheduler " + sc.get("key").asText(), sc.toString());
            }
            JsonNode limits = read.get("limits");
            out.put("schedulersCount", limits.get("schedulersCount").asText());
            out.put("globalConcurrency", limits.get("globalConcurrency").isNull() ? "null"
                    : limits.get("globalConcurrency").asText());
            JsonNode rl = limits.get("globalRateLimit");
            out.put("globalRateLimit", rl.isNull() ? "null"
                    : "{max=" + rl.get("max").asText() + ", duration=" + rl.get("duration").asText() + "}");
            out.put("rateLimitTtl", limits.get("rateLimitTtl").asText());
            out.put("isMaxed", limits.get("isMaxed").asText());
            return out;
        }

        private void runOnNode(DifferentialScenario s, int i) {
            node.send(InteropKit.JSON.createObjectNode().put("url", server.uri()).put("queue", QUEUE)
                    .put("file", s.file().toString()).put("step", i).toString());
            JsonNode answer = node.awaitLine(STEP);
            if (!answer.has("done") || answer.get("done").asInt() != i) {
                fail(s.name() + ": step " + i + " failed in bullmq: " + answer.path("error").asText(answer.toString()));
            }
        }
    }

    /** Both APIs read the control's state (made by bullmq alone) alike: counts by state, each job's state. */
    private static void readsAgree(DifferentialScenario s, TreeMap<String, String> control) {
        assertNotNull(control, s.name() + ": no trusted control run (see its control test)");
        Map<String, String> bullmq = new TreeMap<>();
        Map<String, String> bull4j = new TreeMap<>();
        control.forEach((path, value) -> {
            if (path.startsWith(BULLMQ_READS)) {
                bullmq.put(path.substring(BULLMQ_READS.length()), value);
            } else if (path.startsWith(BULL4J_READS)) {
                bull4j.put(path.substring(BULL4J_READS.length()), value);
            }
        });
        Map<String, String> d = RedisSnapshot.diff(bullmq, bull4j, "bullmq reads", "bull4j reads");
        if (!d.isEmpty()) {
            fail(s.name() + ": bull4j's API reads bullmq's state differently from bullmq's API:\n  "
                    + String.join("\n  ", d.values()));
        }
    }

    /** The name of a read: a job's state under the job's id as the snapshot writes it. */
    private static String normalizedRead(String key, String value, Map<String, String> ids, RedisSnapshot taken) {
        if (key.startsWith("state ")) {
            String id = key.substring("state ".length());
            return "state " + ids.getOrDefault(id, id);
        }
        return key;
    }

    /** A scheduler as read: its next time and offset written as the snapshot writes them. */
    private static String normalizedValue(String key, String value, RedisSnapshot taken) {
        if (!key.startsWith("scheduler ")) {
            return value;
        }
        try {
            ObjectNode n = (ObjectNode) InteropKit.JSON.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(value));
            String id = n.path("key").asText();
            if (n.hasNonNull("next")) {
                n.put("next", taken.schedulerTime(id, n.get("next").asLong()));
            }
            if (n.hasNonNull("offset") && n.hasNonNull("every")) {
                n.put("offset", taken.schedulerOffset(id, n.get("offset").asLong(), n.get("every").asLong()));
            }
            return n.toString();
        } catch (java.io.IOException e) {
            return "not JSON: " + value;
        }
    }

    /** The ids of the jobs whose hash the snapshot holds. */
    private static List<String> jobIds(Map<String, String> snapshot) {
        String prefix = "bull:" + QUEUE + ":";
        return snapshot.keySet().stream()
                .filter(p -> p.startsWith(prefix) && p.endsWith(" name"))
                .map(p -> p.substring(prefix.length(), p.length() - " name".length()))
                .filter(id -> !snapshot.containsKey(prefix + id + " ic")) // a job scheduler's definition
                .toList();
    }
}
