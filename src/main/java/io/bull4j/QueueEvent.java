package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.codec.Json;

import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
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
        /** A job was added ({@link #jobName()}). */
        ADDED("added"),
        /** A job entered the wait list ({@link #prev()} may say where from). */
        WAITING("waiting"),
        /** A worker started a job ({@link #prev()}: usually {@code waiting}). */
        ACTIVE("active"),
        /** A job reported progress ({@link #progress()}). */
        PROGRESS("progress"),
        /** A job completed ({@link #returnValueJson()}). */
        COMPLETED("completed"),
        /**
         * A job failed for good ({@link #failedReason()}): its last attempt failed, or it failed unrecoverably. An
         * attempt that is retried writes {@code waiting} or {@code delayed} instead, as in BullMQ.
         */
        FAILED("failed"),
        /** A job was delayed, at add or for a retry ({@link #delay()}: when it is due). */
        DELAYED("delayed"),
        /** A job's lock expired while it was active, and it was moved back to wait. */
        STALLED("stalled"),
        /** A job was removed ({@link #prev()}: the state it was in). */
        REMOVED("removed"),
        /** The wait list became empty. */
        DRAINED("drained"),
        /** The queue was paused. */
        PAUSED("paused"),
        /** The queue was resumed. */
        RESUMED("resumed"),
        /** An add with an existing job id added nothing. */
        DUPLICATED("duplicated"),
        /** An add was deduplicated ({@link #deduplicationId()}, {@link #deduplicatedJobId()}). */
        DEDUPLICATED("deduplicated"),
        /** A failed job has no attempts left ({@link #attemptsMade()}). */
        RETRIES_EXHAUSTED("retries-exhausted"),
        /** A job waits for its children (BullMQ flows). */
        WAITING_CHILDREN("waiting-children"),
        /** Jobs were cleaned ({@link #count()}). */
        CLEANED("cleaned"),
        /** An event published by someone else (BullMQ's {@code QueueEventsProducer}); see {@link #eventName()}. */
        CUSTOM(null);

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        /** {@return the name in the stream's {@code event} field; null for {@link #CUSTOM}} */
        public String wireName() {
            return wireName;
        }

        /**
         * The type of an {@code event} field value.
         *
         * @param name the event name as written in the stream
         * @return its type; {@link #CUSTOM} when it is none of BullMQ's
         */
        public static Type fromWireName(String name) {
            Type t = name == null ? null : BY_WIRE_NAME.get(name);
            return t == null ? CUSTOM : t;
        }

        // one lookup per event read, without the array values() copies each time
        private static final Map<String, Type> BY_WIRE_NAME = byWireName();

        private static Map<String, Type> byWireName() {
            Map<String, Type> m = new HashMap<>();
            for (Type t : values()) {
                if (t.wireName != null) {
                    m.putIfAbsent(t.wireName, t); // the first, as the scan it replaces
                }
            }
            return Map.copyOf(m);
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

    /** {@return the event's type; {@link Type#CUSTOM} for an event BullMQ does not define} */
    public Type type() {
        return type;
    }

    /** {@return the raw event name: the wire name of {@link #type()}, or a custom event's own name} */
    public String eventName() {
        return eventName;
    }

    /** {@return the stream entry id ({@code <ms>-<seq>}); pass it as {@code lastEventId} to resume after this event} */
    public String id() {
        return id;
    }

    /** {@return when Redis stored the event (the time part of {@link #id()})} */
    public Instant timestamp() {
        int dash = id.indexOf('-');
        return Instant.ofEpochMilli(Long.parseLong(dash < 0 ? id : id.substring(0, dash)));
    }

    /** {@return the fields as written, without {@code event}; unmodifiable} */
    public Map<String, String> fields() {
        return fields;
    }

    /** {@return the job the event is about; null for queue-wide events (drained, paused, resumed, cleaned)} */
    public String jobId() {
        return fields.get("jobId");
    }

    /** {@return for {@code added}, the job's name; else null} */
    public String jobName() {
        return fields.get("name");
    }

    /** {@return for {@code completed}, the processor's return value as JSON text; else null} */
    public String returnValueJson() {
        return fields.get("returnvalue");
    }

    /**
     * For {@code completed}: the return value read with the options' mapper.
     *
     * @param type the class to read it as
     * @param <T> the type of the value
     * @return the value, or null when the event carries none
     * @throws Bull4jException when the JSON cannot be read as {@code type}
     */
    public <T> T returnValue(Class<T> type) {
        return readJson(returnValueJson(), type);
    }

    /** {@return for {@code progress}, the reported progress as JSON text (a number or any JSON value); else null} */
    public String progressJson() {
        return fields.get("data");
    }

    /** {@return for {@code progress}, the progress as plain Java values (a number, map, list...); else null} */
    public Object progress() {
        return readJson(progressJson(), Object.class);
    }

    /** {@return for {@code failed}, the failure message; else null} */
    public String failedReason() {
        return fields.get("failedReason");
    }

    /**
     * {@return the state the job left, as BullMQ writes it in {@code prev} (such as {@code waiting} or
     * {@code active}); {@link JobState#UNKNOWN} for a name that is no job state; null when the event has none}
     */
    public JobState prev() {
        String prev = fields.get("prev");
        return prev == null ? null : JobState.fromWireName(prev);
    }

    /** {@return for {@code delayed}, when the job is due (BullMQ writes the due time, not a duration); else null} */
    public Instant delay() {
        String due = fields.get("delay");
        return due == null || due.isEmpty() ? null : Instant.ofEpochMilli((long) Double.parseDouble(due));
    }

    /** {@return for {@code cleaned}, how many jobs were removed; 0 when absent} */
    public long count() {
        return longField("count");
    }

    /** {@return for {@code retries-exhausted}, the attempts made; 0 when absent} */
    public int attemptsMade() {
        return (int) longField("attemptsMade");
    }

    /** {@return for {@code deduplicated}, the deduplication id; else null} */
    public String deduplicationId() {
        return fields.get("deduplicationId");
    }

    /** {@return for {@code deduplicated}, the job that was ignored (never created) or replaced; else null} */
    public String deduplicatedJobId() {
        return fields.get("deduplicatedJobId");
    }

    private long longField(String name) {
        return StoredNumbers.orZero(fields.get(name));
    }

    private <T> T readJson(String json, Class<T> type) {
        return json == null || json.isEmpty() ? null : Json.read(mapper, json, mapper.constructType(type));
    }

    @Override
    public String toString() {
        return "QueueEvent{" + eventName + " " + id + " " + fields + "}";
    }
}
