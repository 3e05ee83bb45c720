package io.bull4j.internal.codec;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.impl.UnknownSerializer;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses to write {@code {}} for an object that has fields Jackson cannot see (private fields without getters),
 * which would store a job's data with its content silently lost. An object with no such fields (an empty class)
 * is still written as {@code {}}. It takes the place of Jackson's serializer for classes without properties, so
 * it costs nothing on any other class.
 */
final class EmptyBeanGuard extends JsonSerializer<Object> {
    private final Class<?> type;
    private final List<String> hiddenFields;

    private EmptyBeanGuard(Class<?> type, List<String> hiddenFields) {
        this.type = type;
        this.hiddenFields = hiddenFields;
    }

    /** The module that installs the guard on a mapper. */
    static SimpleModule module() {
        SimpleModule m = new SimpleModule("bull4j-empty-bean-guard");
        m.setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public JsonSerializer<?> modifySerializer(SerializationConfig config, BeanDescription desc,
                                                      JsonSerializer<?> serializer) {
                if (serializer instanceof UnknownSerializer) {
                    Class<?> type = desc.getBeanClass();
                    return new EmptyBeanGuard(type, hiddenFields(type));
                }
                return serializer;
            }
        });
        return m;
    }

    @Override
    public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        if (!hiddenFields.isEmpty()) {
            throw InvalidDefinitionException.from(gen, type.getName() + " has fields " + hiddenFields
                    + " that Jackson cannot see (no getters, not public), so it would be stored as {}: add getters, "
                    + "make it a record, annotate the fields with @JsonProperty, or pass an ObjectMapper configured "
                    + "for it", provider.constructType(type));
        }
        gen.writeStartObject(value, 0);
        gen.writeEndObject();
    }

    /** Instance fields a serializer would be expected to write: not static, transient, synthetic or ignored. */
    private static List<String> hiddenFields(Class<?> type) {
        List<String> out = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isStatic(m) && !Modifier.isTransient(m) && !f.isSynthetic()
                        && !f.isAnnotationPresent(JsonIgnore.class)) {
                    out.add(f.getName());
                }
            }
        }
        return out;
    }
}
