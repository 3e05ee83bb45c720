package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.QueueEvent;
import io.bull4j.QueueEvents;
import io.bull4j.QueueEventsOptions;
import io.bull4j.OptionsJson;
import io.bull4j.support.NodeBullmq;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** Field-by-field agreement between what bullmq and bull4j read: jobs, and the events stream. */
final class InteropWorkerAsserts {
    private InteropWorkerAsserts() {
    }

    /** bullmq's decoding of a job (interop-worker.mjs jobJson) and bull4j's agree on every field. */
    static void assertSameJob(JsonNode n, Job j) {
        String at = "job " + j.id() + ": ";
        assertEquals(j.id(), n.path("id").asText(), at + "id");
        assertEquals(j.name(), n.path("name").asText(), at + "name");
        assertEquals(json(j.dataJson()), n.get("data"), at + "data");
        assertEquals(json(OptionsJson.write(j.opts())), n.get("opts"), at + "opts");
        assertEquals(JSON.valueToTree(j.progress()), n.get("progress"), at + "progress");
        assertEquals(j.attemptsMade(), n.path("attemptsMade").asInt(), at + "attemptsMade");
        assertEquals(j.attemptsStarted(), n.path("attemptsStarted").asInt(), at + "attemptsStarted");
        assertEquals(j.stalledCounter(), n.path("stalledCounter").asInt(), at + "stalledCounter");
        assertEquals(j.timestamp().toEpochMilli(), n.path("timestamp").asLong(), at + "timestamp");
        assertEquals(millis(j.processedOn()), nullableLong(n.get("processedOn")), at + "processedOn");
        assertEquals(millis(j.finishedOn()), nullableLong(n.get("finishedOn")), at + "finishedOn");
        JsonNode rv = j.returnValueJson() == null ? JSON.nullNode() : json(j.returnValueJson());
        assertEquals(rv, n.get("returnvalue"), at + "returnvalue");
        assertEquals(j.failedReason(), n.get("failedReason").isNull() ? null : n.get("failedReason").asText(),
                at + "failedReason");
        assertEquals(j.delay().toMillis(), n.path("delay").asLong(), at + "delay");
        assertEquals(j.priority(), n.path("priority").asInt(), at + "priority");
        assertEquals(j.stacktrace(), texts(n.get("stacktrace")), at + "stacktrace");
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null) {
            array.forEach(e -> out.add(e.asText()));
        }
        return out;
    }

    /** The ids of a list of bullmq jobs. */
    static List<String> ids(JsonNode jobs) {
        List<String> out = new ArrayList<>();
        jobs.forEach(j -> out.add(j.get("id").asText()));
        return out;
    }

    private static Long millis(Instant i) {
        return i == null ? null : i.toEpochMilli();
    }

    private static Long nullableLong(JsonNode n) {
        return n == null || n.isNull() ? null : n.asLong();
    }

    /**
     * Reads the whole events stream with bull4j's QueueEvents and with bullmq's (interop.mjs events), and checks
     * that both deliver every entry, in order, with the same name, id and fields (bullmq hands some fields over
     * parsed: a JSON returnvalue or progress, a numeric delay; they must be the same values). Returns bull4j's.
     */
    static List<QueueEvent> assertReadersAgree(String q) throws Exception {
        List<StreamMessage<String, String>> stream = redis().xrange(key(q, "events"), Range.create("-", "+"));
        int total = stream.size();
        List<QueueEvent> ours = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> all = new CompletableFuture<>();
        try (QueueEvents events = new QueueEvents(q, QueueEventsOptions.builder().connection(connection())
                .lastEventId("0").autorun(false).build())) {
            events.addListener(e -> {
                ours.add(e);
                if (ours.size() >= total) {
                    all.complete(null);
                }
            });
            events.run();
            await(all);
        }
        List<JsonNode> theirs = NodeBullmq.run(NODE, "events", uri(), q, Integer.toString(total), "0");
        assertEquals(total, theirs.size(), "bullmq's QueueEvents read every entry");
        for (int i = 0; i < total; i++) {
            QueueEvent e = ours.get(i);
            JsonNode n = theirs.get(i);
            Map<String, String> entry = new LinkedHashMap<>(stream.get(i).getBody());
            String at = "event " + i + " " + entry + ": ";
            assertEquals(stream.get(i).getId(), e.id(), at + "bull4j's id");
            assertEquals(entry.remove("event"), e.eventName(), at + "bull4j's name");
            assertEquals(entry, e.fields(), at + "bull4j's fields");
            assertEquals(e.eventName(), n.path("event").asText(), at + "bullmq's name");
            assertEquals(e.id(), n.path("id").asText(), at + "bullmq's id");
            Set<String> names = new LinkedHashSet<>();
            for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
                names.add(it.next());
            }
            names.removeAll(List.of("event", "id"));
            assertEquals(entry.keySet(), names, at + "bullmq's fields");
            entry.forEach((k, v) -> assertTrue(sameValue(v, n.get(k)), at + k + ": bull4j " + v + ", bullmq "
                    + n.get(k)));
        }
        return new ArrayList<>(ours);
    }

    /** A stream field as written, against bullmq's value for it: the text itself, or the JSON value it parsed. */
    private static boolean sameValue(String written, JsonNode theirs) {
        if (theirs.isTextual() && written.equals(theirs.asText())) {
            return true;
        }
        try {
            JsonNode parsed = json(written);
            if (parsed.isNumber() && theirs.isNumber()) {
                return parsed.decimalValue().compareTo(theirs.decimalValue()) == 0;
            }
            return parsed.equals(theirs);
        } catch (RuntimeException notJson) {
            return false;
        }
    }

    /** The events stream as {@code event[:jobName]} lines, to compare runs whose job ids differ. */
    static List<String> trail(String q) {
        List<String> out = new ArrayList<>();
        for (Map<String, String> e : stream(q)) {
            String id = e.get("jobId");
            out.add(e.get("event") + (id == null ? "" : ":" + redis().hget(key(q, id), "name")));
        }
        return out;
    }

    /** bull4j's events of one type (about one job unless jobId is null). */
    static List<QueueEvent> ofType(List<QueueEvent> events, QueueEvent.Type type, String jobId) {
        List<QueueEvent> out = new ArrayList<>();
        for (QueueEvent e : events) {
            if (e.type() == type && (jobId == null || jobId.equals(e.jobId()))) {
                out.add(e);
            }
        }
        return out;
    }
}
