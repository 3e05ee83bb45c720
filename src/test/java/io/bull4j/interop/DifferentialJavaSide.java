package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Backoff;
import io.bull4j.BulkJob;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobDependencies;
import io.bull4j.JobOptions;
import io.bull4j.JobScheduler;
import io.bull4j.JobState;
import io.bull4j.JobTemplate;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.RateLimitException;
import io.bull4j.RepeatOptions;
import io.bull4j.UnrecoverableException;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.support.TestRedis;
import io.lettuce.core.Range;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Runs the steps of a {@link DifferentialScenario} with bull4j, the way a Java user would write them. */
final class DifferentialJavaSide {
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);

    private final Bull4jConnection connection;
    private final RedisCommands<String, String> redis;
    private Running background; // a work step that runs while the next steps do

    DifferentialJavaSide(Bull4jConnection connection, RedisCommands<String, String> redis) {
        this.connection = connection;
        this.redis = redis;
    }

    void run(DifferentialScenario s, int i, String queueName) throws Exception {
        JsonNode step = s.step(i);
        switch (s.kind(i)) {
            case "add" -> {
                try (Queue q = queue(queueName)) {
                    q.add(step.get("name").asText(), step.get("data"), options(step.get("opts")));
                }
            }
            case "addBulk" -> {
                List<BulkJob> jobs = new ArrayList<>();
                for (JsonNode j : step) {
                    jobs.add(BulkJob.of(j.get("name").asText(), j.get("data"), options(j.get("opts"))));
                }
                try (Queue q = queue(queueName)) {
                    q.addBulk(jobs);
                }
            }
            case "flow" -> {
                try (io.bull4j.FlowProducer flows = new io.bull4j.FlowProducer(
                        QueueOptions.builder().connection(connection).build())) {
                    flows.add(flowJob(step, queueName));
                }
            }
            case "pause" -> {
                try (Queue q = queue(queueName)) {
                    q.pause();
                }
            }
            case "resume" -> {
                try (Queue q = queue(queueName)) {
                    q.resume();
                }
            }
            case "job" -> {
                if (step.path("record").asBoolean()) { // the answer goes to the list 'answers', compared too
                    if (i == 0) {
                        jobCache.clear();
                    }
                    try (Queue q = queue(queueName)) {
                        String id = step.get("id").asText();
                        if (id.startsWith("@")) { // the oldest job of a state, e.g. "@delayed"
                            List<Job> first = q.getJobs(java.util.Set.of(JobState.fromWireName(id.substring(1))), 0, 0, true);
                            id = first.isEmpty() ? "none" : first.get(0).id();
                        }
                        Job job = step.path("cached").asBoolean() ? jobCache.get(id) : null;
                        if (job == null) {
                            job = q.getJob(id);
                        }
                        if (job != null && step.path("keep").asBoolean()) {
                            jobCache.put(id, job);
                        }
                        Object answer;
                        if (job == null) {
                            answer = "no job";
                        } else if (step.has("sequence")) {
                            if (step.path("removeFirst").asBoolean()) {
                                q.remove(id);
                            }
                            List<Object> results = new ArrayList<>();
                            for (JsonNode op : step.get("sequence")) {
                                try {
                                    results.add(recordedJobOp(q, job, op));
                                } catch (RuntimeException e) {
                                    results.add(Map.of("error", true));
                                }
                            }
                            answer = results;
                        } else {
                            try {
                                answer = recordedJobOp(q, job, step);
                            } catch (RuntimeException e) {
                                answer = Map.of("error", true);
                            }
                        }
                        record(i, answer);
                    }
                    return;
                }
                try (Queue q = queue(queueName)) {
                    Job job = q.getJob(step.get("id").asText());
                    if (job == null) {
                        throw new IllegalStateException(s.name() + ": no job " + step.get("id"));
                    }
                    jobOp(job, step);
                }
            }
            case "query" -> {
                if (i == 0) {
                    jobCache.clear();
                }
                try (Queue q = queue(queueName)) {
                    Object answer;
                    try {
                        answer = query(q, step);
                    } catch (RuntimeException e) {
                        answer = Map.of("error", true);
                    }
                    record(i, answer);
                }
            }
            case "clean" -> {
                try (Queue q = queue(queueName)) {
                    q.clean(Duration.ofMillis(step.get("graceMs").asLong()), step.get("limit").asInt(),
                            JobState.fromWireName(step.get("type").asText()));
                }
            }
            case "drain" -> {
                try (Queue q = queue(queueName)) {
                    q.drain(step.get("delayed").asBoolean());
                }
            }
            case "retryJobs" -> {
                try (Queue q = queue(queueName)) {
                    q.retryJobs(JobState.fromWireName(step.get("state").asText()));
                }
            }
            case "promoteJobs" -> {
                try (Queue q = queue(queueName)) {
                    q.promoteJobs();
                }
            }
            case "upsertJobScheduler" -> {
                try (Queue q = queue(queueName)) {
                    q.upsertJobScheduler(step.get("id").asText(), repeat(step.get("repeat")), template(step.get("template")));
                }
            }
            case "removeJobScheduler" -> {
                try (Queue q = queue(queueName)) {
                    q.removeJobScheduler(step.get("id").asText());
                }
            }
            case "setGlobalRateLimit" -> {
                try (Queue q = queue(queueName)) {
                    q.setGlobalRateLimit(step.get("max").asInt(), Duration.ofMillis(step.get("duration").asLong()));
                }
            }
            case "removeGlobalRateLimit" -> {
                try (Queue q = queue(queueName)) {
                    q.removeGlobalRateLimit();
                }
            }
            case "setGlobalConcurrency" -> {
                try (Queue q = queue(queueName)) {
                    q.setGlobalConcurrency(step.get("concurrency").asInt());
                }
            }
            case "removeGlobalConcurrency" -> {
                try (Queue q = queue(queueName)) {
                    q.removeGlobalConcurrency();
                }
            }
            case "rateLimit" -> {
                try (Queue q = queue(queueName)) {
                    q.rateLimit(Duration.ofMillis(step.get("ms").asLong()));
                }
            }
            case "removeRateLimitKey" -> {
                try (Queue q = queue(queueName)) {
                    q.removeRateLimitKey();
                }
            }
            case "work" -> {
                Running w = startWorker(s, step.path("queue").asText(queueName), step);
                if (step.path("background").asBoolean()) {
                    background = w;
                } else {
                    w.finish();
                }
            }
            case "manual" -> manual(i, step.path("queue").asText(queueName), step);
            case "awaitWork" -> {
                if (background == null) {
                    throw new IllegalStateException(s.name() + ": awaitWork without a background work step");
                }
                Running w = background;
                background = null;
                w.finish();
            }
            default -> throw new IllegalArgumentException(s.name() + ": unknown step " + s.kind(i));
        }
    }

    // ---- recorded answers: what a call returned, kept in the Redis list 'answers' so that the snapshot compares it ----
    private final Map<String, Job> jobCache = new java.util.HashMap<>();
    private static final com.fasterxml.jackson.databind.ObjectMapper CANON = new com.fasterxml.jackson.databind.ObjectMapper()
            .configure(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private void record(int step, Object answer) throws Exception {
        JsonNode tree = CANON.valueToTree(answer);
        redis.rpush("answers", step + ": " + CANON.writeValueAsString(sortTree(tree)));
    }

    private static JsonNode sortTree(JsonNode n) {
        if (n.isObject()) {
            com.fasterxml.jackson.databind.node.ObjectNode o = CANON.createObjectNode();
            List<String> names = new ArrayList<>();
            n.fieldNames().forEachRemaining(names::add);
            java.util.Collections.sort(names);
            for (String k : names) {
                o.set(k, sortTree(n.get(k)));
            }
            return o;
        }
        if (n.isArray()) {
            com.fasterxml.jackson.databind.node.ArrayNode a = CANON.createArrayNode();
            n.forEach(c -> a.add(sortTree(c)));
            return a;
        }
        return n;
    }

    private static JobState[] states(JsonNode types) {
        List<JobState> out = new ArrayList<>();
        for (JsonNode t : types) {
            out.add(JobState.fromWireName(t.asText()));
        }
        return out.toArray(new JobState[0]);
    }

    private static Object recordedJobOp(Queue q, Job job, JsonNode spec) {
        switch (spec.get("op").asText()) {
            case "updateProgress" -> job.updateProgress(spec.get("progress"));
            case "log" -> { return job.log(spec.get("line").asText()); }
            case "clearLogs" -> job.clearLogs(spec.path("keepLogs").asInt(0));
            case "removeDeduplicationKey" -> { return job.removeDeduplicationKey(); }
            case "getState" -> { return job.getState().wireName(); }
            case "removeUnprocessedChildren" -> job.removeUnprocessedChildren();
            case "removeChildDependency" -> { return job.removeChildDependency(); }
            case "childrenValues" -> { return job.getChildrenValues(); }
            case "failedChildrenValues" -> { return job.getFailedChildrenValues(); }
            case "dependenciesCount" -> {
                JobDependencies.Counts c = job.getDependenciesCount();
                return Map.of("processed", c.processed(), "unprocessed", c.unprocessed(), "ignored", c.ignored(),
                        "failed", c.failed());
            }
            case "remove" -> { return job.remove(); }
            case "ignoredFailures" -> { return job.getIgnoredChildrenFailures(); }
            case "dependencies" -> {
                JobDependencies d = job.getDependencies();
                Map<String, Object> processed = new TreeMap<>();
                d.processed().forEach((k, v) -> {
                    try {
                        processed.put(k, InteropKit.JSON.readTree(v));
                    } catch (Exception e) {
                        processed.put(k, "unparsable " + v);
                    }
                });
                return Map.of("processed", processed, "unprocessed", d.unprocessed().stream().sorted().toList(),
                        "ignored", d.ignored(), "failed", d.failed().stream().sorted().toList());
            }
            case "removeKeepChildren" -> { return job.remove(false); }
            case "retry" -> job.retry(JobState.fromWireName(spec.path("state").asText("failed")),
                    spec.path("resetAttemptsMade").asBoolean(), spec.path("resetAttemptsStarted").asBoolean());
            case "changePriority" -> job.changePriority(spec.get("priority").asInt(), spec.path("lifo").asBoolean());
            case "read" -> {
                Job j = q.getJob(job.id());
                if (j == null) {
                    return "missing";
                }
                Map<String, Object> m = new TreeMap<>();
                m.put("name", j.name());
                m.put("data", j.data());
                m.put("progress", j.progress());
                m.put("delay", j.delay().toMillis());
                m.put("priority", j.priority());
                m.put("attemptsMade", j.attemptsMade());
                m.put("attemptsStarted", j.attemptsStarted());
                m.put("stalledCounter", j.stalledCounter());
                m.put("returnvalue", j.returnValueJson() == null ? null : InteropKit.JSON.valueToTree(j.returnValue(Object.class)));
                m.put("failedReason", j.failedReason());
                m.put("deduplicationId", j.deduplicationId());
                m.put("parentKey", j.parentKey());
                m.put("finished", j.finishedOn() != null);
                m.put("processed", j.processedOn() != null);
                return m;
            }
            default -> jobOp(job, spec);
        }
        return null;
    }

    private static Object query(Queue q, JsonNode spec) {
        switch (spec.get("what").asText()) {
            case "counts" -> {
                Map<String, Long> out = new TreeMap<>();
                q.getJobCounts(states(spec.path("types"))).forEach((k, v) -> out.put(k.wireName(), v));
                return out;
            }
            case "jobs" -> {
                return q.getJobs(new java.util.LinkedHashSet<>(Arrays.asList(states(spec.path("types")))),
                        spec.path("start").asLong(0), spec.path("end").asLong(-1), spec.path("asc").asBoolean(false))
                        .stream().map(Job::id).toList();
            }
            case "countsPerPriority" -> {
                int[] p = new int[spec.get("priorities").size()];
                for (int k = 0; k < p.length; k++) {
                    p[k] = spec.get("priorities").get(k).asInt();
                }
                Map<String, Long> out = new TreeMap<>();
                q.getCountsPerPriority(p).forEach((k, v) -> out.put(String.valueOf(k), v));
                return out;
            }
            case "logs" -> {
                io.bull4j.JobLogs l = q.getJobLogs(spec.get("id").asText(), spec.path("start").asLong(0),
                        spec.path("end").asLong(-1), spec.path("asc").asBoolean(true));
                return Map.of("logs", l.logs(), "count", l.count());
            }
            case "dedupJobId" -> { return q.getDeduplicationJobId(spec.get("id").asText()); }
            case "removeDedupKey" -> { return q.removeDeduplicationKey(spec.get("id").asText()) ? 1 : 0; }
            case "obliterate" -> q.obliterate(spec.path("force").asBoolean());
            case "trimEvents" -> { return q.trimEvents(spec.get("maxLength").asLong()); }
            case "clean" -> {
                return q.clean(Duration.ofMillis(spec.get("graceMs").asLong()), spec.get("limit").asInt(),
                        JobState.fromWireName(spec.get("type").asText()));
            }
            case "retryJobs" -> q.retryJobs(JobState.fromWireName(spec.path("state").asText("failed")),
                    spec.path("count").asInt(1000), spec.has("timestamp")
                            ? Instant.ofEpochMilli(spec.get("timestamp").asLong()) : Instant.now());
            case "promoteJobs" -> q.promoteJobs(spec.path("count").asInt(1000));
            case "remove" -> { return q.remove(spec.get("id").asText(), spec.path("removeChildren").asBoolean(true)) ? 1 : 0; }
            case "state" -> {
                Job j = q.getJob(spec.get("id").asText());
                return j == null ? "unknown" : j.getState().wireName();
            }
            case "count" -> { return q.count(); }
            case "add" -> {
                if (!spec.has("defaultJobOptions")) {
                    return q.add(spec.get("name").asText(), spec.get("data"), options(spec.get("opts"))).id();
                }
                try (Queue dq = new Queue(q.name(), q.options().toBuilder()
                        .defaultJobOptions(options(spec.get("defaultJobOptions"))).build())) {
                    return dq.add(spec.get("name").asText(), spec.get("data"), options(spec.get("opts"))).id();
                }
            }
            case "addBulk" -> {
                List<BulkJob> jobs = new ArrayList<>();
                for (JsonNode j : spec.get("jobs")) {
                    jobs.add(BulkJob.of(j.get("name").asText(), j.get("data"), options(j.get("opts"))));
                }
                return q.addBulk(jobs).stream().map(Job::id).toList();
            }
            case "isPaused" -> { return q.isPaused(); }
            default -> throw new IllegalArgumentException("unknown query " + spec);
        }
        return null;
    }

    /** Waits for a background worker that a run left running (to see a job active) and closes it. */
    void finishBackground() throws InterruptedException {
        if (background != null) {
            Running w = background;
            background = null;
            w.finish();
        }
    }

    /** After a failed run: closes a background worker still running, without waiting for its outcomes. */
    void abandonBackground() {
        if (background != null) {
            Running w = background;
            background = null;
            try (Queue q = w.queue; Worker worker = w.worker) {
                worker.close(Duration.ofSeconds(5));
            }
        }
    }

    /** How bull4j's API reads the queue: counts by state (BullMQ's names), and each job's state ("unknown": none). */
    Map<String, String> read(String queueName, List<String> jobIds) {
        Map<String, String> out = new TreeMap<>();
        try (Queue q = queue(queueName)) {
            Map<String, Long> counts = new TreeMap<>();
            List<JobState> states = Arrays.stream(JobState.values()).filter(st -> st != JobState.UNKNOWN).toList();
            q.getJobCounts(states.toArray(new JobState[0])).forEach((state, n) -> counts.put(state.wireName(), n));
            out.put("counts", counts.toString());
            for (String id : jobIds) {
                Job job = q.getJob(id);
                out.put("state " + id, job == null ? "unknown" : job.getState().wireName());
            }
            for (JobScheduler j : q.getJobSchedulers(0, -1, true)) {
                out.put("scheduler " + j.id(), schedulerJson(j));
            }
            out.put("schedulersCount", Long.toString(q.getJobSchedulersCount()));
            out.put("globalConcurrency", String.valueOf(q.getGlobalConcurrency()));
            io.bull4j.RateLimit limit = q.getGlobalRateLimit();
            out.put("globalRateLimit", limit == null ? "null"
                    : "{max=" + limit.max() + ", duration=" + limit.duration().toMillis() + "}");
            out.put("rateLimitTtl", q.getRateLimitTtl() > 0 ? "positive" : "none");
            out.put("isMaxed", Boolean.toString(q.isMaxed()));
        }
        return out;
    }

    /**
     * A scheduler as {@code differential.mjs} writes bullmq's: every field getJobSchedulers gives, the template's
     * data, and of its options the attempts and priority; absent fields null. Times stay raw here (the test
     * normalizes {@code next} and {@code offset} as the snapshot does).
     */
    static String schedulerJson(JobScheduler j) {
        com.fasterxml.jackson.databind.node.ObjectNode n = InteropKit.JSON.createObjectNode();
        n.put("key", j.id());
        n.put("name", j.name());
        n.put("next", j.next() == null ? null : j.next().toEpochMilli());
        n.put("iterationCount", j.iterationCount());
        n.put("limit", j.limit());
        n.put("startDate", j.startDate() == null ? null : j.startDate().toEpochMilli());
        n.put("endDate", j.endDate() == null ? null : j.endDate().toEpochMilli());
        n.put("tz", j.tz());
        n.put("pattern", j.pattern());
        n.put("every", j.every() == null ? null : j.every().toMillis());
        n.put("offset", j.offset() == null ? null : j.offset().toMillis());
        n.set("data", j.templateData());
        JobOptions o = j.templateOptions();
        n.put("attempts", o == null || o.attempts() == 0 ? null : o.attempts());
        n.put("priority", o == null || o.priority() == 0 ? null : o.priority());
        return n.toString();
    }

    private Queue queue(String name) {
        return new Queue(name, QueueOptions.builder().connection(connection).build());
    }

    private static void jobOp(Job job, JsonNode spec) {
        switch (spec.get("op").asText()) {
            case "promote" -> job.promote();
            case "retry" -> job.retry(JobState.fromWireName(spec.path("state").asText("failed")));
            case "updateData" -> job.updateData(spec.get("data"));
            case "remove" -> job.remove();
            case "changePriority" -> job.changePriority(spec.get("priority").asInt(), spec.path("lifo").asBoolean());
            case "changeDelay" -> job.changeDelay(Duration.ofMillis(spec.get("delay").asLong()));
            default -> throw new IllegalArgumentException("unknown job op " + spec);
        }
    }

    /** A worker of concurrency 1 (or the step's {@code concurrency}), until the stream holds {@code finals} more final outcomes than at its start. */
    private Running startWorker(DifferentialScenario s, String queueName, JsonNode step) {
        int finals = step.get("finals").asInt();
        String events = TestRedis.key(queueName, "events");
        long start = finals(events);
        WorkerOptions.Builder opts = workerOptions(step.path("workerOpts"))
                .concurrency(step.path("concurrency").asInt(1));
        Queue q = queue(queueName);
        Worker[] self = new Worker[1];
        Worker w = new Worker(queueName, job -> behave(s, job, q, self[0]), opts.build());
        self[0] = w;
        return new Running(s.name(), q, w, events, start, finals);
    }

    /** A step's {@code workerOpts} as bull4j's; an option the driver does not know fails the scenario. */
    private WorkerOptions.Builder workerOptions(JsonNode workerOpts) {
        WorkerOptions.Builder opts = WorkerOptions.builder().connection(connection);
        for (Iterator<Map.Entry<String, JsonNode>> it = workerOpts.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            switch (e.getKey()) {
                case "name" -> opts.name(e.getValue().asText());
                case "removeOnComplete" -> opts.removeOnComplete(keep(e.getValue()));
                case "removeOnFail" -> opts.removeOnFail(keep(e.getValue()));
                case "maxStartedAttempts" -> opts.maxStartedAttempts(e.getValue().asInt());
                case "limiter" -> opts.limiter(e.getValue().get("max").asInt(),
                        Duration.ofMillis(e.getValue().get("duration").asLong()));
                case "lockDuration" -> opts.lockDuration(Duration.ofMillis(e.getValue().asLong()));
                default -> throw new IllegalArgumentException("the Java driver does not know worker option " + e.getKey());
            }
        }
        return opts;
    }

    // ---- manual steps: a worker without a processor, driven by hand with one fixed token ----
    private static final Duration MANUAL_WAIT = Duration.ofSeconds(10);

    /**
     * A manual step, as a Java user writes BullMQ's "manually fetching jobs": {@code getNextJob} and the job's
     * {@code moveTo*} calls with the step's token. Each op's answer goes to the string
     * {@code answers:<step>:<op>}; a refusal ({@link io.bull4j.JobException}) is recorded as BullMQ's error code
     * and the message.
     */
    private void manual(int step, String queueName, JsonNode spec) throws Exception {
        String token = spec.path("token").asText("tok-1");
        try (Worker worker = new Worker(queueName, workerOptions(spec.path("workerOpts")).build());
             Queue q = queue(queueName)) {
            Job current = null;
            JsonNode ops = spec.get("ops");
            for (int n = 0; n < ops.size(); n++) {
                JsonNode op = ops.get(n);
                String tok = op.path("token").asText(token);
                Job target = null;
                if (!op.get("op").asText().equals("getNextJob") && !op.get("op").asText().equals("completeAll")) {
                    target = op.has("id") ? q.getJob(op.get("id").asText()) : current;
                    if (target == null) {
                        throw new IllegalStateException("manual op " + n + " (" + op + "): no job");
                    }
                }
                Object answer;
                try {
                    switch (op.get("op").asText()) {
                        case "getNextJob" -> {
                            // wait: call again (blocking) until a job comes, e.g. a retry whose backoff runs out
                            long deadline = System.nanoTime() + MANUAL_WAIT.toNanos();
                            Job job = worker.getNextJob(tok, op.path("block").asBoolean(false));
                            while (job == null && op.path("wait").asBoolean() && System.nanoTime() < deadline) {
                                job = worker.getNextJob(tok, true);
                            }
                            if (job == null && op.path("wait").asBoolean()) {
                                throw new IllegalStateException("manual op " + n + ": no job within " + MANUAL_WAIT);
                            }
                            current = job;
                            answer = summary(job);
                        }
                        case "moveToCompleted" -> {
                            Job next = target.moveToCompleted(manualValue(op, target), tok,
                                    op.path("fetchNext").asBoolean(false));
                            if (!op.has("id")) {
                                current = next;
                            }
                            answer = java.util.Collections.singletonMap("next", summary(next));
                        }
                        case "moveToFailed" -> {
                            String message = op.get("error").asText();
                            Job next = target.moveToFailed(op.path("unrecoverable").asBoolean()
                                            ? new UnrecoverableException(message) : new IllegalStateException(message),
                                    tok, op.path("fetchNext").asBoolean(false));
                            if (!op.has("id")) {
                                current = next;
                            }
                            answer = java.util.Collections.singletonMap("next", summary(next));
                        }
                        case "completeAll" -> { // the manual loop: complete and fetch the next in one call, until none
                            List<String> ids = new ArrayList<>();
                            while (current != null) {
                                ids.add(current.id());
                                current = current.moveToCompleted(manualValue(op, current), tok, true);
                            }
                            answer = ids;
                        }
                        case "extendLock" -> {
                            target.extendLock(tok, Duration.ofMillis(op.get("ms").asLong()));
                            answer = 1; // bullmq's answer (it answers 0 to a refusal, where bull4j throws)
                        }
                        case "moveToDelayed" -> {
                            target.moveToDelayed(Instant.now().plusMillis(op.get("delayMs").asLong()), tok);
                            answer = "delayed";
                        }
                        case "moveToWait" -> answer = target.moveToWait(tok).isZero() ? "none" : "limited";
                        default -> throw new IllegalArgumentException("unknown manual op " + op);
                    }
                } catch (io.bull4j.JobException e) {
                    Map<String, Object> refusal = new TreeMap<>();
                    refusal.put("code", code(e.reason()));
                    refusal.put("error", e.getMessage());
                    answer = refusal;
                }
                JsonNode tree = answer == null ? CANON.nullNode() : CANON.valueToTree(answer);
                redis.set(String.format("answers:%d:%02d", step, n), CANON.writeValueAsString(sortTree(tree)));
            }
        }
    }

    /** What a manual step records of a job taken: its id, attempts and data; null for none. */
    private static Map<String, Object> summary(Job job) {
        if (job == null) {
            return null;
        }
        Map<String, Object> m = new TreeMap<>();
        m.put("id", job.id());
        m.put("attemptsMade", job.attemptsMade());
        m.put("attemptsStarted", job.attemptsStarted());
        m.put("data", job.data());
        return m;
    }

    private static Object manualValue(JsonNode op, Job job) {
        return op.path("echo").asBoolean() ? job.data() : op.get("value");
    }

    /** BullMQ's error code of a refusal, which its errors carry as {@code code}. */
    private static int code(io.bull4j.JobException.Reason reason) {
        return switch (reason) {
            case JOB_NOT_FOUND -> -1;
            case LOCK_MISSING -> -2;
            case NOT_IN_STATE -> -3;
            case PENDING_CHILDREN -> -4;
            case LOCK_MISMATCH -> -6;
            case JOB_LOCKED -> -8;
            case FAILED_CHILDREN -> -9;
            default -> 0;
        };
    }

    /** A running work step; {@link #finish} waits for its outcomes and closes it. */
    private final class Running {
        private final String scenario;
        private final Queue queue;
        private final Worker worker;
        private final String events;
        private final long start;
        private final int finals;

        Running(String scenario, Queue queue, Worker worker, String events, long start, int finals) {
            this.scenario = scenario;
            this.queue = queue;
            this.worker = worker;
            this.events = events;
            this.start = start;
            this.finals = finals;
        }

        void finish() throws InterruptedException {
            try (queue; worker) {
                TestRedis.eventually(STEP_TIMEOUT, () -> finals(events) - start >= finals,
                        finals + " final outcomes in " + scenario);
            }
        }
    }

    /** The completed and failed events of the stream so far. */
    private long finals(String eventsKey) {
        return redis.xrange(eventsKey, Range.create("-", "+")).stream()
                .map(m -> m.getBody().get("event"))
                .filter(e -> "completed".equals(e) || "failed".equals(e))
                .count();
    }

    private static Object behave(DifferentialScenario s, Job job, Queue queue, Worker worker) throws Exception {
        JsonNode b = s.behaviour(job.name());
        if (b.has("holdMs")) {
            // why sleep: the attempt itself is slow, so that delayed jobs fall due meanwhile; no outcome is awaited
            Thread.sleep(b.get("holdMs").asLong());
        }
        for (JsonNode p : b.path("progress")) {
            job.updateProgress(p);
        }
        for (JsonNode line : b.path("logs")) {
            job.log(line.asText());
        }
        if (b.has("spawnChild")) { // a step job adding a child of its own, then waiting for it
            if (job.getDependenciesCount().processed() == 0) {
                JsonNode c = b.get("spawnChild");
                JobOptions.Builder o = options(c.get("opts")).toBuilder().jobId(c.get("jobId").asText());
                try (io.bull4j.FlowProducer f = new io.bull4j.FlowProducer(QueueOptions.builder()
                        .connection(queue.options().connection()).build())) {
                    f.add(io.bull4j.FlowJob.builder(c.get("name").asText(), job.queueName()).data(c.get("data"))
                            .options(o.build()).parent(io.bull4j.ParentRef.of(job.id(), job.queueQualifiedName())).build());
                }
                job.moveToWaitingChildren();
            }
            return job.getChildrenValues();
        }
        if (b.has("updateDataTo")) { // the processor replaces its job's data
            job.updateData(b.get("updateDataTo"));
        }
        if (b.has("moveToDelayedMs") && job.attemptsStarted() <= 1) {
            job.moveToDelayed(Instant.now().plusMillis(b.get("moveToDelayedMs").asLong()));
        }
        if (b.path("pauseQueue").asBoolean()) {
            queue.pause();
        }
        if (b.has("rateLimitMs") && (!b.has("rateLimitWhileStartedBelow")
                || job.attemptsStarted() < b.get("rateLimitWhileStartedBelow").asInt())) {
            // the processor finds the downstream limited: the queue waits, the job goes back to wait
            worker.rateLimit(Duration.ofMillis(b.get("rateLimitMs").asLong()));
            throw new RateLimitException();
        }
        if (b.has("fail") && (!b.has("failTimes") || job.attemptsMade() < b.get("failTimes").asInt())) {
            String message = b.get("fail").asText();
            throw b.path("unrecoverable").asBoolean() ? new UnrecoverableException(message)
                    : new IllegalStateException(message);
        }
        if (b.path("echo").asBoolean()) {
            return job.data();
        }
        return b.get("returns"); // null (absent) is returned as JSON null
    }

    /** A flow step's tree, each node in its {@code queue} or else the scenario's queue. */
    private static io.bull4j.FlowJob flowJob(JsonNode n, String queueName) {
        io.bull4j.FlowJob.Builder b = io.bull4j.FlowJob.builder(n.get("name").asText(),
                        n.path("queue").asText(queueName))
                .data(n.get("data")).options(options(n.get("opts")));
        for (JsonNode c : n.path("children")) {
            b.child(flowJob(c, queueName));
        }
        return b.build();
    }

    /** A scenario's {@code opts} as bull4j options; an option the driver does not know fails the scenario. */
    static JobOptions options(JsonNode o) {
        JobOptions.Builder b = JobOptions.builder();
        if (o == null || o.isNull()) {
            return b.build();
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "jobId" -> b.jobId(v.asText());
                case "delay" -> b.delay(Duration.ofMillis(v.asLong()));
                case "priority" -> b.priority(v.asInt());
                case "lifo" -> b.lifo(v.asBoolean());
                case "attempts" -> b.attempts(v.asInt());
                case "backoff" -> b.backoff(backoff(v));
                case "removeOnComplete" -> b.removeOnComplete(keep(v));
                case "removeOnFail" -> b.removeOnFail(keep(v));
                case "keepLogs" -> b.keepLogs(v.asInt());
                case "timestamp" -> b.timestamp(Instant.ofEpochMilli(v.asLong()));
                case "stackTraceLimit" -> b.stackTraceLimit(v.asInt());
                case "sizeLimit" -> b.sizeLimit(v.asInt());
                case "deduplication" -> b.deduplication(deduplication(v));
                case "failParentOnFailure" -> b.failParentOnFailure(v.asBoolean());
                case "continueParentOnFailure" -> b.continueParentOnFailure(v.asBoolean());
                case "ignoreDependencyOnFailure" -> b.ignoreDependencyOnFailure(v.asBoolean());
                case "removeDependencyOnFailure" -> b.removeDependencyOnFailure(v.asBoolean());
                default -> throw new IllegalArgumentException("the Java driver does not know option " + e.getKey());
            }
        }
        return b.build();
    }

    /** A scenario's repeat options ({@code every} and {@code offset} in ms, dates in epoch ms) as bull4j's. */
    static RepeatOptions repeat(JsonNode r) {
        RepeatOptions.Builder b = RepeatOptions.builder();
        for (Iterator<Map.Entry<String, JsonNode>> it = r.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            switch (e.getKey()) {
                case "every" -> b.every(Duration.ofMillis(v.asLong()));
                case "pattern" -> b.cron(v.asText());
                case "tz" -> b.tz(java.time.ZoneId.of(v.asText()));
                case "startDate" -> b.startDate(Instant.ofEpochMilli(v.asLong()));
                case "endDate" -> b.endDate(Instant.ofEpochMilli(v.asLong()));
                case "limit" -> b.limit(v.asInt());
                case "immediately" -> b.immediately(v.asBoolean());
                case "offset" -> b.offset(Duration.ofMillis(v.asLong()));
                default -> throw new IllegalArgumentException("the Java driver does not know repeat option " + e.getKey());
            }
        }
        return b.build();
    }

    /** A scenario's job template {@code {name, data, opts}} as bull4j's; null when absent. */
    static JobTemplate template(JsonNode t) {
        if (t == null || t.isNull()) {
            return null;
        }
        String name = t.has("name") ? t.get("name").asText() : null;
        JsonNode data = t.get("data");
        return t.has("opts") ? JobTemplate.of(name, data, options(t.get("opts"))) : JobTemplate.of(name, data);
    }

    private static io.bull4j.Deduplication deduplication(JsonNode v) {
        io.bull4j.Deduplication.Builder d = io.bull4j.Deduplication.builder(v.get("id").asText())
                .extend(v.path("extend").asBoolean()).replace(v.path("replace").asBoolean())
                .reschedule(v.path("reschedule").asBoolean()).keepLastIfActive(v.path("keepLastIfActive").asBoolean());
        if (v.has("ttl")) {
            d.ttl(Duration.ofMillis(v.get("ttl").asLong()));
        }
        return d.build();
    }

    private static Backoff backoff(JsonNode v) {
        if (v.isNumber()) {
            return Backoff.fixed(Duration.ofMillis(v.asLong()));
        }
        Duration delay = Duration.ofMillis(v.path("delay").asLong());
        Backoff b = switch (v.get("type").asText()) {
            case "fixed" -> Backoff.fixed(delay);
            case "exponential" -> Backoff.exponential(delay);
            default -> throw new IllegalArgumentException("unknown backoff type in " + v);
        };
        return v.has("jitter") ? b.withJitter(v.get("jitter").asDouble()) : b;
    }

    private static KeepJobs keep(JsonNode v) {
        if (v.isBoolean()) {
            return v.asBoolean() ? KeepJobs.none() : KeepJobs.all();
        }
        if (v.isNumber()) {
            return KeepJobs.count(v.asInt());
        }
        // the object form {count, age}: age in seconds, possibly fractional
        Integer count = v.has("count") ? v.get("count").asInt() : null;
        Duration age = v.has("age") ? Duration.ofMillis(Math.round(v.get("age").asDouble() * 1000)) : null;
        return KeepJobs.of(count, age);
    }
}
