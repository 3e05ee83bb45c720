package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Backoff;
import io.bull4j.BulkJob;
import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
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
                try (Queue q = queue(queueName)) {
                    Job job = q.getJob(step.get("id").asText());
                    if (job == null) {
                        throw new IllegalStateException(s.name() + ": no job " + step.get("id"));
                    }
                    jobOp(job, step);
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

    /** Waits for a background worker that a run left running (to see a job active) and closes it. */
    void finishBackground() throws InterruptedException {
        if (background != null) {
            Running w = background;
            background = null;
            w.finish();
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
            case "changePriority" -> job.changePriority(spec.get("priority").asInt());
            case "changeDelay" -> job.changeDelay(Duration.ofMillis(spec.get("delay").asLong()));
            default -> throw new IllegalArgumentException("unknown job op " + spec);
        }
    }

    /** A worker of concurrency 1 (or the step's {@code concurrency}), until the stream holds {@code finals} more final outcomes than at its start. */
    private Running startWorker(DifferentialScenario s, String queueName, JsonNode step) {
        int finals = step.get("finals").asInt();
        String events = TestRedis.key(queueName, "events");
        long start = finals(events);
        WorkerOptions.Builder opts = WorkerOptions.builder().connection(connection)
                .concurrency(step.path("concurrency").asInt(1));
        for (Iterator<Map.Entry<String, JsonNode>> it = step.path("workerOpts").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            switch (e.getKey()) {
                case "name" -> opts.name(e.getValue().asText());
                case "removeOnComplete" -> opts.removeOnComplete(keep(e.getValue()));
                case "removeOnFail" -> opts.removeOnFail(keep(e.getValue()));
                case "limiter" -> opts.limiter(e.getValue().get("max").asInt(),
                        Duration.ofMillis(e.getValue().get("duration").asLong()));
                default -> throw new IllegalArgumentException("the Java driver does not know worker option " + e.getKey());
            }
        }
        Queue q = queue(queueName);
        Worker[] self = new Worker[1];
        Worker w = new Worker(queueName, job -> behave(s, job, q, self[0]), opts.build());
        self[0] = w;
        return new Running(s.name(), q, w, events, start, finals);
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
        return switch (v.get("type").asText()) {
            case "fixed" -> Backoff.fixed(delay);
            case "exponential" -> Backoff.exponential(delay);
            default -> throw new IllegalArgumentException("unknown backoff type in " + v);
        };
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
