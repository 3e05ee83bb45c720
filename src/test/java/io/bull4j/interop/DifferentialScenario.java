package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * One scenario of the differential suite, read from {@code src/test/resources/differential/<name>.json}, which both
 * drivers execute step by step: bull4j ({@link DifferentialJavaSide}) and the real bullmq
 * ({@code src/test/node/differential.mjs}). The file holds:
 * <ul>
 *   <li>{@code steps}: in order, each one of {@code {"add": {name, data, opts}}}, {@code {"addBulk": [jobs]}},
 *       {@code {"pause": {}}}, {@code {"resume": {}}}, {@code {"job": {"id", "op": promote | retry (with state) |
 *       remove | changePriority (with priority) | changeDelay (with delay) | updateData (with data)}}}, {@code {"clean": {graceMs, limit, type}}},
 *       {@code {"drain": {delayed}}}, {@code {"flow": {name, data, opts, queue, children: [nodes]}}} (a FlowProducer add,
 *       each node in its {@code queue} or else the scenario's; give every node a jobId, or the two sides' random
 *       ids differ), {@code {"retryJobs": {state}}}, {@code {"promoteJobs": {}}} (producer steps); {@code {"work": {"finals": n}}} (a worker
 *       of concurrency 1, or {@code concurrency}, that runs until the events stream holds {@code n} more
 *       {@code completed}/{@code failed} events, then is closed; {@code queue} names another queue than the
 *       scenario's; {@code workerOpts} may set its {@code name}, {@code removeOnComplete} and
 *       {@code removeOnFail}; a scenario with a concurrency above 1 has its events compared per job, see
 *       {@link #perJobOrder}), or with {@code "background": true} a worker that keeps running while the next
 *       steps do, until an {@code {"awaitWork": {}}} step (worker steps); {@code {"awaitEvent": {"event": e,
 *       "jobId": id}}} (the test waits until the events stream holds that event, e.g. a job became active);
 *       {@code {"manual": {token, workerOpts, ops: [...]}}} (a worker step: BullMQ's "manually fetching jobs", a
 *       Worker built without a processor and driven by hand under one fixed {@code token}, default {@code "tok-1"};
 *       the snapshot writes lock values as {@code <token>}, so the token shows only where an op refuses). Its ops
 *       run in order on the "current" job (the last one taken) or, with {@code id}, on that job read afresh; each
 *       may give its own {@code token} (a wrong one, or {@code "0"}, which skips BullMQ's lock check):
 *       {@code getNextJob} ({@code block}; {@code wait}: called again, blocking, until a job comes within 10 s),
 *       {@code moveToCompleted} ({@code value}, or {@code echo} for the data; {@code fetchNext}),
 *       {@code moveToFailed} ({@code error} message, {@code unrecoverable}, {@code fetchNext}), {@code completeAll}
 *       (the manual loop: moveToCompleted with fetchNext until no job comes back), {@code extendLock} ({@code ms}),
 *       {@code moveToDelayed} ({@code delayMs}) and {@code moveToWait}. A job taken or fetched becomes the current
 *       one. Each op's answer is stored in the string {@code answers:<step>:<op>} (so a documented difference names
 *       one op): a job as {@code {id, attemptsMade, attemptsStarted, data}} (null: none), a finish as
 *       {@code {next}}, the manual loop as the ids it completed, a refusal as {@code {code, error}} (BullMQ's error
 *       code, which bull4j's {@code JobException.reason()} maps to, and the message).</li>
 *   <li>{@code worker}: what a job does, by job name ({@code "*"} for the others; none: echo). Each behaviour may
 *       have {@code holdMs} (the attempt takes that long, so delayed jobs fall due meanwhile), {@code progress}
 *       (values reported in order), {@code logs} (lines logged in order), {@code pauseQueue} (pauses the queue),
 *       {@code fail} (a message to throw; with {@code failTimes} only while {@code attemptsMade < failTimes}),
 *       {@code unrecoverable} (throw BullMQ's UnrecoverableError / bull4j's UnrecoverableException), and
 *       {@code echo} (return the data) or {@code returns} (return that value; absent: null).</li>
 * </ul>
 * A scenario leaves nothing ready when a work step ends (or the worker would take more jobs than it counts). A
 * scenario that ends with a background worker still running is read as it is (a job active), and the worker is
 * finished after the reads. {@code about} says what the scenario is for.
 * {@code knownDifferences} lists documented differences: {@code [{"mixes": ["bull4j -> bullmq", ...],
 * "paths": [snapshot paths], "why": "..."}]}.
 */
record DifferentialScenario(String name, Path file, JsonNode steps, JsonNode worker, JsonNode known) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Every scenario file of the folder, by name. */
    static List<DifferentialScenario> loadAll() {
        String base = System.getProperty("basedir", System.getProperty("user.dir"));
        Path dir = Path.of(base, "src", "test", "resources", "differential");
        try (Stream<Path> files = Files.list(dir)) {
            List<DifferentialScenario> out = new ArrayList<>();
            for (Path f : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                out.add(load(f));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list scenarios in " + dir.toAbsolutePath(), e);
        }
    }

    static DifferentialScenario load(Path file) {
        try {
            JsonNode root = JSON.readTree(file.toFile());
            String name = file.getFileName().toString().replaceFirst("\\.json$", "");
            JsonNode steps = root.path("steps");
            if (!steps.isArray() || steps.isEmpty()) {
                throw new IllegalArgumentException(file + ": \"steps\" must be a non-empty array");
            }
            return new DifferentialScenario(name, file.toAbsolutePath(), steps, root.path("worker"),
                    root.path("knownDifferences"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read scenario " + file, e);
        }
    }

    /** The kind of step {@code i}: add, addBulk, pause, resume, work, manual, ... (see the class comment). */
    String kind(int i) {
        return steps.get(i).fieldNames().next();
    }

    JsonNode step(int i) {
        return steps.get(i).get(kind(i));
    }

    int stepCount() {
        return steps.size();
    }

    /**
     * Whether a work step runs a worker of concurrency above 1: its jobs then finish in an order that timing
     * decides, so the snapshot compares the events per job ({@link RedisSnapshot}).
     */
    boolean perJobOrder() {
        for (int i = 0; i < stepCount(); i++) {
            if (kind(i).equals("work") && step(i).path("concurrency").asInt(1) > 1) {
                return true;
            }
        }
        return false;
    }

    /** The behaviour of jobs of this name. */
    JsonNode behaviour(String jobName) {
        JsonNode b = worker.get(jobName);
        if (b == null) {
            b = worker.get("*");
        }
        return b == null ? JSON.createObjectNode().put("echo", true) : b;
    }

    /** The snapshot paths where a run of this mix ("bull4j -> bullmq", ...) is documented to differ. */
    Set<String> knownDifferences(String mix) {
        Set<String> paths = new TreeSet<>();
        for (JsonNode k : known) {
            for (JsonNode m : k.path("mixes")) {
                if (m.asText().equals(mix)) {
                    k.path("paths").forEach(p -> paths.add(p.asText()));
                }
            }
        }
        return paths;
    }

    @Override
    public String toString() {
        return name;
    }
}
