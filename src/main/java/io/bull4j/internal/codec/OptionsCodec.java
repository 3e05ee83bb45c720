package io.bull4j.internal.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bull4j.Backoff;
import io.bull4j.JobOptions;
import io.bull4j.KeepJobs;

import java.time.Duration;
import java.time.Instant;

/**
 * Job options to and from the {@code opts} JSON of a job hash, with BullMQ's names: {@code attempts} is always
 * written (Node does so too), and {@code keepLogs} is stored compressed as {@code kl}.
 */
public final class OptionsCodec {
    private OptionsCodec() {
    }

    public static String write(JobOptions o) {
        ObjectNode n = Json.DEFAULT.createObjectNode();
        n.put("attempts", o.attempts());
        if (!o.delay().isZero()) n.put("delay", o.delay().toMillis());
        if (o.priority() > 0) n.put("priority", o.priority());
        if (o.lifo()) n.put("lifo", true);
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
        return n.toString();
    }

    private static JsonNode keep(KeepJobs k) {
        if (k.equals(KeepJobs.none())) return Json.DEFAULT.getNodeFactory().booleanNode(true);
        if (k.equals(KeepJobs.all())) return Json.DEFAULT.getNodeFactory().booleanNode(false);
        if (k.age() == null) return Json.DEFAULT.getNodeFactory().numberNode(k.count());
        ObjectNode n = Json.DEFAULT.createObjectNode();
        n.put("age", k.age().toSeconds());
        if (k.count() >= 0) n.put("count", k.count());
        return n;
    }

    /** Reads options as any BullMQ producer stored them; unknown fields are ignored. */
    public static JobOptions read(String json) {
        JsonNode n = Json.tree(json);
        JobOptions.Builder b = JobOptions.builder();
        if (n == null || !n.isObject()) {
            return b.build();
        }
        if (n.hasNonNull("attempts")) b.attempts(Math.max(0, n.get("attempts").asInt()));
        if (n.hasNonNull("delay")) b.delay(Duration.ofMillis(Math.max(0, n.get("delay").asLong())));
        if (n.hasNonNull("priority")) b.priority(n.get("priority").asInt());
        if (n.hasNonNull("lifo")) b.lifo(n.get("lifo").asBoolean());
        if (n.hasNonNull("jobId")) b.jobIdUnchecked(n.get("jobId").asText());
        if (n.hasNonNull("timestamp")) b.timestamp(Instant.ofEpochMilli(n.get("timestamp").asLong()));
        JsonNode backoff = n.get("backoff");
        if (backoff != null && backoff.isNumber()) {
            b.backoff(Backoff.fixed(Duration.ofMillis(backoff.asLong())));
        } else if (backoff != null && backoff.isObject() && backoff.hasNonNull("type")) {
            b.backoff(Backoff.of(backoff.get("type").asText(), Duration.ofMillis(backoff.path("delay").asLong(0)),
                    backoff.path("jitter").asDouble(0)));
        }
        KeepJobs rc = keep(n.get("removeOnComplete"));
        if (rc != null) b.removeOnComplete(rc);
        KeepJobs rf = keep(n.get("removeOnFail"));
        if (rf != null) b.removeOnFail(rf);
        if (n.hasNonNull("stackTraceLimit")) b.stackTraceLimit(n.get("stackTraceLimit").asInt());
        if (n.hasNonNull("kl")) b.keepLogs(n.get("kl").asInt());
        if (n.hasNonNull("sizeLimit")) b.sizeLimit(n.get("sizeLimit").asInt());
        return b.build();
    }

    private static KeepJobs keep(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (n.isBoolean()) return n.asBoolean() ? KeepJobs.none() : KeepJobs.all();
        if (n.isNumber()) return n.asInt() < 0 ? KeepJobs.all() : KeepJobs.count(n.asInt());
        if (n.isObject()) {
            boolean hasAge = n.hasNonNull("age") && n.get("age").asLong() > 0;
            int count = n.hasNonNull("count") ? n.get("count").asInt() : -1;
            if (!hasAge) return count < 0 ? KeepJobs.all() : KeepJobs.count(count);
            KeepJobs k = KeepJobs.age(Duration.ofSeconds(n.get("age").asLong()));
            return count < 0 ? k : k.andCount(count);
        }
        return null;
    }
}
