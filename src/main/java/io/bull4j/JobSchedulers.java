package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.cron.CronCursor;
import io.bull4j.internal.cron.CronPattern;
import io.bull4j.internal.script.AddJobScheduler;
import io.bull4j.internal.script.RemoveJobScheduler;
import io.bull4j.internal.script.UpdateJobScheduler;
import io.lettuce.core.ScoredValue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Job schedulers, BullMQ 6.7.0's layout: the definition in {@code repeat:<id>}, the next run in the {@code repeat}
 * ZSET, each run a job {@code repeat:<id>:<millis>} with {@code rjk}. A run's next one is added when a worker
 * fetches it, so that a run that fails, is retried or stalls keeps the schedule going without adding extra runs:
 * an every scheduler's by the fetch script itself (lua/include/schedulerJob.lua, {@code FetchedJob.schedulerSettled}),
 * a cron scheduler's (and any case the script leaves to the worker) by {@link #addNextIteration}.
 */
final class JobSchedulers {
    private final QueueContext ctx;

    JobSchedulers(QueueContext ctx) {
        this.ctx = ctx;
    }

    // ---- upsert ----

    /** {@code traceMetadata}: the context of the caller's add span, stored in the first run's opts as {@code tm}. */
    Job upsert(String id, RepeatOptions repeat, JobTemplate template, JobOptions queueDefaults,
               String traceMetadata) {
        ValidationException.check(id != null && !id.isEmpty(), "id", "must not be empty");
        ValidationException.check(repeat != null, "repeat", "must not be null");
        long now = ctx.now();
        ValidationException.check(repeat.endDate() == null || repeat.endDate().toEpochMilli() >= now, "endDate",
                "End date must be greater than current timestamp, was " + repeat.endDate());
        String name = template == null || template.name() == null ? id : template.name();
        Object data = template == null ? null : template.data();
        String dataJson = Json.write(ctx.mapper, data == null ? Map.of() : data, "template.data");
        JobOptions templateOpts = template == null || template.options() == null ? queueDefaults
                : template.options().withDefaults(queueDefaults);
        ObjectNode templateOptsNode = templateOptions(template, templateOpts, queueDefaults);
        String templateOptsJson = templateOptsNode.toString();

        Long cronNext = null;
        if (repeat.cron() != null) {
            long from = Math.max(now, repeat.startDate() == null ? 0 : repeat.startDate().toEpochMilli());
            cronNext = repeat.immediately() ? Long.valueOf(now) : CronCursor.nextAfter(CronPattern.parse(repeat.cron()),
                    zone(repeat.tz() == null ? null : repeat.tz().getId()), from,
                    repeat.endDate() == null ? null : repeat.endDate().toEpochMilli());
            ValidationException.check(cronNext != null, "endDate",
                    "the pattern '" + repeat.cron() + "' has no run before " + repeat.endDate());
            cronNext = Math.max(cronNext, now);
        }

        ObjectNode iteration = templateOptsNode.deepCopy();
        iteration.put("timestamp", now);
        if (cronNext != null) {
            iteration.put("prevMillis", cronNext);
        }
        iteration.put("repeatJobKey", id);
        if (traceMetadata != null) {
            iteration.put(Traces.METADATA_OPTION, traceMetadata); // later runs copy it from their run's opts
        }
        ObjectNode r = iteration.putObject("repeat");
        if (repeat.every() != null) {
            r.put("every", repeat.every().toMillis());
        } else {
            r.put("pattern", repeat.cron());
        }
        if (repeat.tz() != null) r.put("tz", repeat.tz().getId());
        if (repeat.limit() != null) r.put("limit", repeat.limit());
        if (repeat.offset() != null && repeat.offset().toMillis() > 0) r.put("offset", repeat.offset().toMillis());
        r.put("count", 1);
        if (repeat.startDate() != null) r.put("startDate", repeat.startDate().toEpochMilli());
        if (repeat.endDate() != null) r.put("endDate", repeat.endDate().toEpochMilli());

        AddJobScheduler.Definition d = new AddJobScheduler.Definition();
        d.name = name;
        d.tz = repeat.tz() == null ? "" : repeat.tz().getId();
        d.limit = repeat.limit() == null ? "" : repeat.limit().toString();
        d.pattern = repeat.cron() == null ? "" : repeat.cron();
        d.startDate = repeat.startDate() == null ? "" : Long.toString(repeat.startDate().toEpochMilli());
        d.endDate = repeat.endDate() == null ? "" : Long.toString(repeat.endDate().toEpochMilli());
        d.every = repeat.every() == null ? "" : Long.toString(repeat.every().toMillis());
        d.offset = repeat.offset() == null || repeat.offset().isZero() ? ""
                : Long.toString(repeat.offset().toMillis());

        AddJobScheduler.Result res = ctx.await(AddJobScheduler.run(ctx.scripts(), ctx.keys, id, cronNext, now, d,
                dataJson, templateOptsJson, iteration.toString()), "upsertJobScheduler");
        if (res.code == AddJobScheduler.ID_COLLISION) {
            throw new Bull4jException("job scheduler " + id + ": the job id of its next run (at " + cronNext
                    + ") is taken by an existing job");
        }
        if (res.code == AddJobScheduler.SLOTS_BUSY) {
            throw new Bull4jException("job scheduler " + id + ": the job ids of its next 32 runs are all taken by "
                    + "existing jobs");
        }
        return new Job(ctx, res.jobId, res.fields, null);
    }

    /**
     * The template's options over the queue's defaults, as BullMQ stores them: {} when neither gives any, and no
     * {@code attempts} unless one sets it (the codec always writes it, BullMQ's template does not).
     */
    private static ObjectNode templateOptions(JobTemplate template, JobOptions merged, JobOptions queueDefaults) {
        boolean none = (template == null || template.options() == null)
                && (queueDefaults == null || queueDefaults.equals(JobOptions.DEFAULTS));
        if (none) {
            return Json.DEFAULT.createObjectNode();
        }
        ObjectNode n = (ObjectNode) Json.tree(OptionsCodec.write(merged));
        if (merged.attempts() == 0) {
            n.remove("attempts");
        }
        return n;
    }

    // ---- next iteration (worker side) ----

    /**
     * Adds the next run of the scheduler whose run was just fetched, as BullMQ's worker does before processing:
     * nothing when the job is not a scheduler run, when the limit or end date is reached, or (in the script) when
     * this is not the scheduler's current run.
     *
     * @return the next run's job id, or null when none was added
     */
    String addNextIteration(String jobId, Map<String, String> fields) {
        String schedulerId = fields.get("rjk");
        if (schedulerId == null || schedulerId.isEmpty()) {
            return null;
        }
        if (looksLegacy(schedulerId) && !Boolean.TRUE.equals(ctx.await(
                ctx.redis().hexists(ctx.keys.scheduler(schedulerId), "ic"), "HEXISTS scheduler"))) {
            throw new Bull4jException("Failed to add repeatable job for next iteration: legacy repeatable job "
                    + "metadata is not supported (key: \"" + schedulerId + "\"). Migrate legacy repeatable jobs to "
                    + "Job Schedulers.");
        }
        JsonNode stored = Json.tree(fields.getOrDefault("opts", "{}"));
        ObjectNode opts = Json.DEFAULT.createObjectNode();
        // BullMQ's worker passes the fetched job's opts, to which its Job object adds attempts 0 when the stored
        // opts have none: the next run's stored opts then carry "attempts":0 (the differential suite's
        // scheduler-every-iterations compares them)
        opts.put("attempts", 0);
        if (stored != null && stored.isObject()) {
            opts.setAll((ObjectNode) stored.deepCopy());
        }
        ObjectNode repeat = opts.get("repeat") instanceof ObjectNode ? (ObjectNode) opts.get("repeat")
                : Json.DEFAULT.createObjectNode();
        repeat.remove("immediately");
        long now = ctx.now();
        long iterationCount = repeat.path("count").asLong(0) + 1;
        if (repeat.hasNonNull("limit") && iterationCount > repeat.get("limit").asLong()) {
            return null;
        }
        Long endDate = millis(repeat.get("endDate"));
        if (endDate != null && now > endDate) {
            return null;
        }
        long prevMillis = opts.path("prevMillis").asLong(0);
        long base = Math.max(now, prevMillis);
        Long startDate = millis(repeat.get("startDate"));
        boolean every = repeat.hasNonNull("every");
        Long cronNext = null;
        if (!every && repeat.hasNonNull("pattern")) {
            long from = Math.max(base, startDate == null ? 0 : startDate);
            cronNext = CronCursor.nextAfter(CronPattern.parse(repeat.get("pattern").asText()),
                    zone(repeat.hasNonNull("tz") ? repeat.get("tz").asText() : null), from, endDate);
            if (cronNext == null) {
                return null;
            }
            cronNext = Math.max(cronNext, base);
        }
        opts.put("timestamp", now);
        if (cronNext != null) {
            opts.put("prevMillis", cronNext);
        } else {
            opts.remove("prevMillis");
        }
        opts.put("repeatJobKey", schedulerId);
        long offset = repeat.path("offset").asLong(0);
        if (every && offset != 0) {
            repeat.put("offset", offset);
        } else {
            repeat.remove("offset");
        }
        repeat.put("count", iterationCount);
        putOrRemove(repeat, "startDate", startDate);
        putOrRemove(repeat, "endDate", endDate);
        opts.set("repeat", repeat);
        if (!every && cronNext == null) {
            return null; // neither every nor a pattern: nothing to schedule
        }
        return ctx.await(UpdateJobScheduler.run(ctx.scripts(), ctx.keys, schedulerId, cronNext, now, jobId,
                opts.toString()), "updateJobScheduler");
    }

    private static void putOrRemove(ObjectNode n, String field, Long value) {
        if (value == null) {
            n.remove(field);
        } else {
            n.put(field, value);
        }
    }

    /** A date as BullMQ may have stored it: epoch ms, or a date string JavaScript's Date reads. */
    private static Long millis(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isNumber()) {
            return n.asLong();
        }
        try {
            return Instant.parse(n.asText()).toEpochMilli();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static ZoneId zone(String tz) {
        if (tz == null || tz.isEmpty()) {
            return ZoneId.systemDefault();
        }
        try {
            return ZoneId.of(tz);
        } catch (RuntimeException e) {
            // BullMQ's cron-parser takes IANA names in any case ("europe/berlin", "utc"), as stored by a Node producer
            String id = ZonesIgnoringCase.BY_LOWER_CASE.get(tz.toLowerCase(java.util.Locale.ROOT));
            if (id == null) {
                throw new ValidationException("tz", "unknown time zone '" + tz + "'");
            }
            return ZoneId.of(id);
        }
    }

    /** The zone ids by their lower-case spelling, built on first use. */
    private static final class ZonesIgnoringCase {
        static final Map<String, String> BY_LOWER_CASE = new java.util.HashMap<>();

        static {
            for (String id : ZoneId.getAvailableZoneIds()) {
                BY_LOWER_CASE.put(id.toLowerCase(java.util.Locale.ROOT), id);
            }
        }
    }

    /** name:id:endDate:tz:pattern|every, the key shape of BullMQ's pre-v6 repeatable jobs. */
    static boolean looksLegacy(String key) {
        String[] parts = key.split(":", -1);
        if (parts.length < 5) {
            return false;
        }
        int third = nthIndex(key, 3);
        int second = nthIndex(key, 2);
        String endDate = key.substring(second + 1, third);
        if (!endDate.isEmpty() && !endDate.chars().allMatch(Character::isDigit)) {
            return false;
        }
        String suffix = key.substring(nthIndex(key, 4) + 1);
        if (suffix.isEmpty()) {
            return false;
        }
        return suffix.contains(" ") || suffix.chars().allMatch(Character::isDigit);
    }

    private static int nthIndex(String s, int n) {
        int at = -1;
        for (int i = 0; i < n; i++) {
            at = s.indexOf(':', at + 1);
        }
        return at;
    }

    // ---- reading and removing ----

    JobScheduler get(String id) {
        ValidationException.check(id != null && !id.isEmpty(), "id", "must not be empty");
        CompletableFuture<Double> score = ctx.redis().zscore(ctx.keys.repeat(), id).toCompletableFuture();
        CompletableFuture<Map<String, String>> hash = ctx.redis().hgetall(ctx.keys.scheduler(id))
                .toCompletableFuture();
        Double next = ctx.await(score, "ZSCORE repeat");
        Map<String, String> fields = ctx.await(hash, "HGETALL scheduler");
        if (next == null) {
            return null;
        }
        return read(id, fields, next.longValue());
    }

    List<JobScheduler> list(long start, long end, boolean asc) {
        List<ScoredValue<String>> entries = ctx.await(asc
                ? ctx.redis().zrangeWithScores(ctx.keys.repeat(), start, end)
                : ctx.redis().zrevrangeWithScores(ctx.keys.repeat(), start, end), "ZRANGE repeat");
        List<CompletableFuture<Map<String, String>>> hashes = new ArrayList<>(entries.size());
        for (ScoredValue<String> e : entries) {
            hashes.add(ctx.redis().hgetall(ctx.keys.scheduler(e.getValue())).toCompletableFuture());
        }
        List<JobScheduler> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String id = entries.get(i).getValue();
            JobScheduler s = read(id, ctx.await(hashes.get(i), "HGETALL scheduler"),
                    (long) entries.get(i).getScore());
            if (s == null) {
                remove(id); // a ZSET entry whose hash is gone, as BullMQ cleans it up
            } else {
                out.add(s);
            }
        }
        return out;
    }

    long count() {
        return ctx.await(ctx.redis().zcard(ctx.keys.repeat()), "ZCARD repeat");
    }

    boolean remove(String id) {
        ValidationException.check(id != null && !id.isEmpty(), "id", "must not be empty");
        return ctx.await(RemoveJobScheduler.run(ctx.scripts(), ctx.keys, id), "removeJobScheduler");
    }

    private JobScheduler read(String id, Map<String, String> f, long next) {
        if (f == null || f.isEmpty()) {
            if (looksLegacy(id)) {
                throw new Bull4jException("Legacy repeatable job metadata is not supported (key: \"" + id
                        + "\"). Migrate legacy repeatable jobs to Job Schedulers.");
            }
            return null;
        }
        JsonNode data = f.containsKey("data") ? Json.tree(f.get("data")) : null;
        JobOptions options = f.containsKey("opts") ? OptionsCodec.read(f.get("opts")) : null;
        return new JobScheduler(id, f.get("name"), Instant.ofEpochMilli(next), longOrNull(f.get("ic")),
                intOrNull(f.get("limit")), instantOrNull(f.get("startDate")), instantOrNull(f.get("endDate")),
                emptyToNull(f.get("tz")), emptyToNull(f.get("pattern")), durationOrNull(f.get("every")),
                f.containsKey("offset") && longOrNull(f.get("offset")) != null
                        ? Duration.ofMillis(longOrNull(f.get("offset"))) : null,
                data, options);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** JavaScript's parseInt of a stored number: the leading integer, or null. */
    private static Long longOrNull(String s) {
        if (s == null) {
            return null;
        }
        String t = s.strip();
        int end = t.startsWith("-") ? 1 : 0;
        while (end < t.length() && Character.isDigit(t.charAt(end))) {
            end++;
        }
        try {
            return Long.parseLong(t.substring(0, end));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Integer intOrNull(String s) {
        Long l = longOrNull(s);
        return l == null ? null : (int) (long) l;
    }

    private static Instant instantOrNull(String s) {
        Long l = longOrNull(s);
        return l == null ? null : Instant.ofEpochMilli(l);
    }

    private static Duration durationOrNull(String s) {
        Long l = longOrNull(s);
        return l == null ? null : Duration.ofMillis(l);
    }
}
