package io.bull4j.internal.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * JSON as BullMQ stores it. One shared, thread-safe default mapper for job data and return values (users may pass
 * their own, which is used as is), also used for the protocol's own fields (opts, stacktrace).
 */
public final class Json {
    /**
     * What the default mapper reads: what it (or Node's JSON.stringify) writes, so that a job added is never one its
     * worker cannot read. Jackson's defaults refuse strings over 20 M characters (a 15 MB base64 attachment),
     * numbers over 1,000 digits and property names over 50,000 characters, which writing allows. Numbers stay
     * bounded, at 100,000 digits; nesting at Jackson's 1,000 levels, the depth it also writes.
     */
    static final StreamReadConstraints READ_LIMITS = StreamReadConstraints.builder()
            .maxStringLength(Integer.MAX_VALUE)
            .maxNumberLength(100_000) // past it, parsing a number costs quadratic time
            .maxNameLength(Integer.MAX_VALUE)
            .build();

    /**
     * Lenient on unknown properties, since Node producers may add fields a Java record lacks. java.time values are
     * ISO-8601 text (Instant {@code "2024-05-01T12:00:00Z"}, LocalDate {@code "2024-05-01"}, Duration
     * {@code "PT1H30M"}), which JavaScript's {@code Date.parse} and {@code new Date()} read, and which a Node
     * producer's {@code JSON.stringify(new Date())} matches; Optional is its value or null. An object whose fields
     * Jackson cannot see is refused rather than stored as {@code {}} ({@link HiddenFieldGuard}). Escapes use lower-case
     * hex digits, and NaN and the infinities are {@code null} ({@link NonFiniteAsNull}), as {@code JSON.stringify}.
     */
    public static final ObjectMapper DEFAULT = new ObjectMapper(JsonFactory.builder()
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE).addDecorator(new NonFiniteAsNull())
            .streamReadConstraints(READ_LIMITS).build())
            .registerModule(new JavaTimeModule())
            .registerModule(new Jdk8Module())
            .registerModule(HiddenFieldGuard.module())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // HiddenFieldGuard decides about objects without visible properties, instead of Jackson's blanket refusal
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    /**
     * The default mapper for job data (adds, updateData, a scheduler's template): it also refuses objects with only
     * some fields invisible ({@link HiddenFieldGuard#partialModule()}), which would be stored without them. Return
     * values and progress keep {@link #DEFAULT}: refused there, a processor's finished work would run again.
     */
    static final ObjectMapper DATA = DEFAULT.copy().registerModule(HiddenFieldGuard.partialModule());

    private Json() {
    }

    /**
     * Serializes as {@code JSON.stringify} would store the same value (lone surrogates escaped, see
     * {@link Utf16#jsonLikeNode}), or throws a ValidationException naming {@code field}.
     */
    public static String write(ObjectMapper mapper, Object value, String field) {
        ObjectMapper m = mapper == DEFAULT && (field.equals("data") || field.endsWith(".data")) ? DATA : mapper;
        try {
            return Utf16.jsonLikeNode(m.writeValueAsString(value));
        } catch (JsonProcessingException | RuntimeException e) {
            throw new io.bull4j.ValidationException(field, "cannot be serialized to JSON: " + e.getMessage());
        }
    }

    public static JsonNode tree(String json) {
        if (json == null || json.isEmpty()) {
            return null;
        }
        try {
            return DEFAULT.readTree(Utf16.rawSurrogateEscapes(json));
        } catch (JsonProcessingException e) {
            throw new io.bull4j.Bull4jException("stored value is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    public static <T> T read(ObjectMapper mapper, String json, JavaType type) {
        try {
            return mapper.readValue(Utf16.rawSurrogateEscapes(json), type);
        } catch (JsonProcessingException e) {
            throw new io.bull4j.Bull4jException("cannot read JSON as " + type + ": " + e.getOriginalMessage(), e);
        }
    }
}
