package io.bull4j.internal.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** JSON as BullMQ stores it. One shared, thread-safe default mapper; users may pass their own. */
public final class Json {
    /**
     * Lenient on unknown properties, since Node producers may add fields a Java record lacks; escapes with
     * lower-case hex digits, as {@code JSON.stringify}.
     */
    public static final ObjectMapper DEFAULT = new ObjectMapper(JsonFactory.builder()
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE).build())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Json() {
    }

    /**
     * Serializes as {@code JSON.stringify} would store the same value (lone surrogates escaped, see
     * {@link Utf16#jsonLikeNode}), or throws a ValidationException naming {@code field}.
     */
    public static String write(ObjectMapper mapper, Object value, String field) {
        try {
            return Utf16.jsonLikeNode(mapper.writeValueAsString(value));
        } catch (JsonProcessingException | RuntimeException e) {
            throw new io.bull4j.ValidationException(field, "cannot be serialized to JSON: " + e.getMessage());
        }
    }

    public static JsonNode tree(String json) {
        if (json == null || json.isEmpty()) {
            return null;
        }
        try {
            return DEFAULT.readTree(json);
        } catch (JsonProcessingException e) {
            throw new io.bull4j.Bull4jException("stored value is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    public static <T> T read(ObjectMapper mapper, String json, JavaType type) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new io.bull4j.Bull4jException("cannot read JSON as " + type + ": " + e.getOriginalMessage(), e);
        }
    }
}
