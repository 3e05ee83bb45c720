package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bull4j.internal.codec.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;

/**
 * Job options to and from the {@code opts} JSON of a job hash, with BullMQ's names: {@code attempts} is always
 * written (Node does so too), and {@code keepLogs} is stored compressed as {@code kl}. In the API package, not in
 * {@code internal.codec}, because reading what another producer stored takes values the public setters refuse
 * (an id BullMQ accepted under older rules), through package-private doors of {@link JobOptions} and
 * {@link Backoff}.
 */
final class OptionsCodec {
    private static final Logger log = LoggerFactory.getLogger(OptionsCodec.class);

    private OptionsCodec() {
    }

    /**
     * The options as JSON. Options set explicitly are written even when they hold the default value (a
     * {@code priority(0)} is stored as {@code "priority":0}), as BullMQ writes every option its caller passed. The
     * add script re-encodes this text with Redis's cjson, as BullMQ's does, so the stored bytes are BullMQ's.
     */
    static String write(JobOptions o) {
        ObjectNode n = Json.DEFAULT.createObjectNode();
        n.put("attempts", o.attempts());
        if (o.hasDelay()) n.put("delay", o.delay().toMillis());
        if (o.hasPriority()) n.put("priority", o.priority());
        if (o.hasLifo()) n.put("lifo", o.lifo());
        if (o.jobId() != null) n.put("jobId", o.jobId());
        if (o.timestamp() != null) n.put("timestamp", o.timestamp().toEpochMilli());
        if (o.backoff() != null) {
            ObjectNode b = n.putObject("backoff");
            b.put("type", o.backoff().type());
            b.put("delay", o.backoff().delay().toMillis());
            if (o.backoff().jitter() > 0) b.put("jitter", o.backoff().jitter());
        }
        if (o.removeOnComplete() != null) n.set("removeOnComplete", keep(o.removeOnComplete()));
        if (o.removeOnFail() != null) n.set("removeOnFail", keep(o.removeOnFail()));
        if (o.stackTraceLimit() != null) n.put("stackTraceLimit", o.stackTraceLimit());
        if (o.keepLogs() != null) n.put("kl", o.keepLogs());
        if (o.sizeLimit() != null) n.put("sizeLimit", o.sizeLimit());
        if (o.deduplication() != null) n.set("de", dedup(o.deduplication()));
        if (o.timeout() != null) n.put("timeout", o.timeout().toMillis()); // bull4j only; BullMQ ignores it
        if (o.parentPolicy() != null) n.put(o.parentPolicy(), true);
        return n.toString();
    }

    /**
     * The options of a flow's child: as {@link #write(JobOptions)}, then its parent as BullMQ's FlowProducer adds it,
     * {@code "parent":{"id":..., "queue":"P:Q"}}, after the caller's options.
     */
    static String writeChild(JobOptions o, String parentId, String parentQueue) {
        ObjectNode n = (ObjectNode) Json.tree(write(o));
        ObjectNode p = n.putObject("parent");
        p.put("id", parentId);
        p.put("queue", parentQueue);
        return n.toString();
    }

    /** BullMQ's compressed {@code de}: the id, and only the options that are set (ttl in ms). */
    private static ObjectNode dedup(Deduplication d) {
        ObjectNode n = Json.DEFAULT.createObjectNode();
        n.put("id", d.id());
        if (d.ttl() != null) n.put("ttl", d.ttl().toMillis());
        if (d.extend()) n.put("extend", true);
        if (d.replace()) n.put("replace", true);
        if (d.reschedule()) n.put("reschedule", true);
        if (d.keepLastIfActive()) n.put("keepLastIfActive", true);
        return n;
    }

    /** In the form the caller chose, as BullMQ stores it: true, false, a number or {age, count}. */
    private static JsonNode keep(KeepJobs k) {
        switch (k.form()) {
            case BOOLEAN:
                return Json.DEFAULT.getNodeFactory().booleanNode(k.count() == 0);
            case NUMBER:
                return Json.DEFAULT.getNodeFactory().numberNode(k.count());
            default:
                ObjectNode n = Json.DEFAULT.createObjectNode();
                if (k.age() != null) {
                    long millis = k.age().toMillis();
                    // BullMQ's age is in seconds and may be fractional; a truncated 0 would make a Node worker
                    // remove every finished job, this one included
                    if (millis % 1000 == 0) n.put("age", millis / 1000);
                    else n.put("age", millis / 1000.0);
                }
                if (k.hasCount()) n.put("count", k.count());
                return n;
        }
    }

    /**
     * Reads options as any BullMQ producer stored them. Never throws: unknown fields, values outside bull4j's
     * ranges and a text that is not JSON are skipped (with a warning), because a worker that cannot read a job's
     * options must still be able to run and finish it.
     */
    static JobOptions read(String json) {
        if (json == null) {
            return parse(null);
        }
        // most jobs of a queue share one opts text: parse it once (options are immutable, so sharing is safe)
        JobOptions cached = READ_CACHE.get(json);
        if (cached == null) {
            cached = parse(json);
            if (READ_CACHE.size() >= READ_CACHE_MAX) {
                READ_CACHE.clear(); // custom job ids make every text unique: keep the cache bounded, simply
            }
            READ_CACHE.put(json, cached);
        }
        return cached;
    }

    private static final int READ_CACHE_MAX = 1024;
    private static final java.util.concurrent.ConcurrentHashMap<String, JobOptions> READ_CACHE =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static JobOptions parse(String json) {
        JobOptions.Builder b = JobOptions.builder();
        JsonNode n;
        try {
            n = Json.tree(json);
        } catch (RuntimeException e) {
            log.warn("job options are not JSON; using defaults: {}", e.getMessage());
            return b.build();
        }
        if (n == null || !n.isObject()) {
            return b.build();
        }
        lenient("attempts", () -> b.attempts(Math.max(0, n.get("attempts").asInt())), n);
        lenient("delay", () -> b.delay(Duration.ofMillis(Math.max(0, n.get("delay").asLong()))), n);
        lenient("priority", () -> b.priority(n.get("priority").asInt()), n);
        lenient("lifo", () -> b.lifo(n.get("lifo").asBoolean()), n);
        lenient("jobId", () -> b.jobIdUnchecked(n.get("jobId").asText()), n);
        lenient("timestamp", () -> b.timestamp(Instant.ofEpochMilli(n.get("timestamp").asLong())), n);
        lenient("backoff", () -> {
            JsonNode backoff = n.get("backoff");
            if (backoff.isNumber()) {
                b.backoff(Backoff.fixed(Duration.ofMillis(backoff.asLong())));
            } else if (backoff.isObject() && backoff.hasNonNull("type")) {
                b.backoff(Backoff.of(backoff.get("type").asText(),
                        Duration.ofMillis(backoff.path("delay").asLong(0)), backoff.path("jitter").asDouble(0)));
            }
        }, n);
        lenient("removeOnComplete", () -> {
            KeepJobs rc = keep(n.get("removeOnComplete"));
            if (rc != null) b.removeOnComplete(rc);
        }, n);
        lenient("removeOnFail", () -> {
            KeepJobs rf = keep(n.get("removeOnFail"));
            if (rf != null) b.removeOnFail(rf);
        }, n);
        lenient("stackTraceLimit", () -> b.stackTraceLimit(n.get("stackTraceLimit").asInt()), n);
        lenient("kl", () -> b.keepLogs(n.get("kl").asInt()), n);
        // BullMQ treats a sizeLimit of 0 as none
        lenient("sizeLimit", () -> {
            if (n.get("sizeLimit").asInt() > 0) b.sizeLimit(n.get("sizeLimit").asInt());
        }, n);
        // "de" is BullMQ's compressed deduplication, and also where BullMQ 5 stored its "debounce" alias
        lenient("de", () -> {
            JsonNode de = n.get("de");
            if (de.isObject() && de.hasNonNull("id") && !de.get("id").asText().isEmpty()) {
                Deduplication.Builder d = Deduplication.builder(de.get("id").asText())
                        .extend(de.path("extend").asBoolean(false)).replace(de.path("replace").asBoolean(false))
                        .reschedule(de.path("reschedule").asBoolean(false))
                        .keepLastIfActive(de.path("keepLastIfActive").asBoolean(false));
                if (de.path("ttl").asLong(0) > 0) d.ttl(Duration.ofMillis(de.get("ttl").asLong()));
                b.deduplication(d.build());
            }
        }, n);
        lenient("timeout", () -> {
            if (n.get("timeout").isNumber()) b.timeout(Duration.ofMillis(n.get("timeout").asLong()));
        }, n);
        for (String flag : new String[] {"fpof", "cpof", "idof", "rdof"}) {
            if (n.path(flag).asBoolean(false)) {
                b.parentPolicyUnchecked(flag);
            }
        }
        return b.build();
    }

    /** Applies one stored option if present; one out of range is skipped, not fatal. */
    private static void lenient(String field, Runnable apply, JsonNode n) {
        if (!n.hasNonNull(field)) {
            return;
        }
        try {
            apply.run();
        } catch (RuntimeException e) {
            log.warn("ignoring stored job option {}={}: {}", field, n.get(field), e.getMessage());
        }
    }

    /** Keeps the stored form, so that a job re-added or shown by bull4j reads as it was stored. */
    private static KeepJobs keep(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (n.isBoolean()) return n.asBoolean() ? KeepJobs.none() : KeepJobs.all();
        if (n.isNumber()) return KeepJobs.count(n.asInt());
        if (n.isObject()) {
            // age: seconds, possibly fractional (0.5 is half a second); kept to the millisecond
            Duration age = n.hasNonNull("age") ? Duration.ofMillis(Math.round(n.get("age").asDouble() * 1000)) : null;
            Integer count = n.hasNonNull("count") ? n.get("count").asInt() : null;
            return KeepJobs.of(count, age);
        }
        return null;
    }
}
