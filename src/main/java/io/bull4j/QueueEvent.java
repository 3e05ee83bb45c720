package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.codec.Json;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One entry of a queue's events stream, as {@link QueueEvents} delivers it: its {@link #type()}, the stream
 * {@link #id()} and the fields BullMQ wrote, with typed accessors for the fields an event carries.
 *
 * <pre>{@code
 * events.on(QueueEvent.Type.COMPLETED, e -> log.info("{} done: {}", e.jobId(), e.returnValueJson()));
 * events.on(QueueEvent.Type.FAILED, e -> alert(e.jobId(), e.failedReason()));
 * }</pre>
 *
 * <p>Immutable and thread-safe. An accessor for a field the event does not carry returns null (or 0 for the
 * counts), so read the ones that belong to the {@link #type()} at hand.
 */
public final class QueueEvent {
    /** The events BullMQ writes, by their wire names ({@link #wireName()}); {@link #CUSTOM} for any other. */
    public enum Type {
        ADDED("added"), WAITING("waiting"), ACTIVE("active"), PROGRESS("progress"), COMPLETED("completed"),
        FAILED("failed"), DELAYED("delayed"), STALLED("stalled"), REMOVED("removed"), DRAINED("drained"),
        PAUSED("paused"), RESUMED("resumed"), DUPLICATED("duplicated"), DEDUPLICATED("deduplicated"),
        RETRIES_EXHAUSTED("retries-exhausted"), WAITING_CHILDREN("waiting-children"), CLEANED("cleaned"),
        /** An event published by someone else (BullMQ's {@code QueueEventsProducer}); see {@link #eventName()}. */
        CUSTOM(null);

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        /** The name in the stream's {@code event} field; null for {@link #CUSTOM}. */
        public String wireName() {
            return wireName;
        }

        /** The type of an {@code event} field value; {@link #CUSTOM} when it is none of BullMQ's. */
        public static Type fromWireName(String name) {
            for (Type t : values()) {
                if (t.wireName != null && t.wireName.equals(name)) {
                    return t;
                }
            }
            return CUSTOM;
        }
    }

    private final String id;
    private final Type type;
    private final String eventName;
    private final Map<String, String> fields;
    private final ObjectMapper mapper;

    QueueEvent(String id, Map<String, String> entry, ObjectMapper mapper) {
        Map<String, String> rest = new LinkedHashMap<>(entry);
        this.eventName = String.valueOf(rest.remove("event"));
        this.type = Type.fromWireName(eventName);
        this.id = id;
        this.fields = Collections.unmodifiableMap(rest);
        this.mapper = mapper;
    }

    public Type type() {
        return type;
    }

    /** The raw event name: the wire name of {@link #type()}, or a custom event's own name. */
    public String eventName() {
        return eventName;
    }

    /** The stream entry id ({@code <ms>-<seq>}); pass it as {@code lastEventId} to resume after this event. */
    public String id() {
        return id;
    }

    /** When Redis stored the event (the time part of {@link #id()}). */
    public Instant timestamp() {
        int dash = id.indexOf('-');
        return Instant.ofEpochMilli(Long.parseLong(dash < 0 ? id : id.substring(0, dash)));
    }

    /** The fields as written, without {@code event}. */
    public Map<String, String> fields() {
        return fields;
    }

    /** The job the event is about; null for queue-wide events (drained, paused, resumed, cleaned). */
    public String jobId() {
        return fields.get("jobId");
    }

    /** {@code added}: the job's name. */
    public String jobName() {
        return fields.get("name");
    }

    /** {@code completed}: the processor's return value as JSON text. */
    public String returnValueJson() {
        return fields.get("returnvalue");
    }

    /** {@code completed}: the return value read as {@code type}, or null when the event carries none. */
    public <T> T returnValue(Class<T> type) {
        return readJson(returnValueJson(), type);
    }

    /** {@code progress}: the reported progress as JSON text (a number or any JSON value). */
    public String progressJson() {
        return fields.get("data");
    }

    /** {@code progress}: the progress as plain Java values (a number, map, list...), or null. */
    public Object progress() {
        return readJson(progressJson(), Object.class);
    }

    /** {@code failed}: the failure message. */
    public String failedReason() {
        return fields.get("failedReason");
    }

    /**
     * The state the job left ({@code waiting}, {@code active}, {@code completed}, {@code removed},
     * {@code waiting-children}); {@link JobState#UNKNOWN} for BullMQ's {@code "unknown"}; null when not given.
     */
    public JobState prev() {
        String prev = fields.get("prev");
        return prev == null ? null : JobState.fromWireName(prev);
    }

    /** {@code delayed}: when the job is due (BullMQ writes the due time, not a duration), or null. */
    public Instant delay() {
        String due = fields.get("delay");
        return due == null || due.isEmpty() ? null : Instant.ofEpochMilli((long) Double.parseDouble(due));
    }

    /** {@code cleaned}: how many jobs were removed; 0 when absent. */
    public long count() {
        return longField("count");
    }

    /** {@code retries-exhausted}: the attempts made; 0 when absent. */
    public int attemptsMade() {
        return (int) longField("attemptsMade");
    }

    /** {@code deduplicated}: the deduplication id. */
    public String deduplicationId() {
        return fields.get("deduplicationId");
    }

    /** {@code deduplicated}: the job that was ignored (never created) or replaced; {@link #jobId()} is kept. */
    public String deduplicatedJobId() {
        return fields.get("deduplicatedJobId");
    }

    private long longField(String name) {
        String v = fields.get(name);
        if (v == null || v.isEmpty()) {
            return 0;
        }
        try {
            return (long) Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private <T> T readJson(String json, Class<T> type) {
        return json == null || json.isEmpty() ? null : Json.read(mapper, json, mapper.constructType(type));
    }

    @Override
    public String toString() {
        return "QueueEvent{" + eventName + " " + id + " " + fields + "}";
    }
}
