package io.bull4j.internal.codec;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializer;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.impl.UnknownSerializer;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Refuses to write an object that has fields Jackson cannot see (private fields without getters, or read through
 * fluent accessors such as {@code amount()}): Jackson would leave them out, and a job's data would be stored with
 * part of its content, or all of it ({@code {}}), silently lost. Fields that are static, transient or
 * {@code @JsonIgnore}d (or named in {@code @JsonIgnoreProperties}) are meant to be left out and are not counted,
 * nor are the JDK's own classes' fields. An empty class is still written as {@code {}}. It looks at each class once,
 * when Jackson builds its serializer, and takes that serializer's place only for a class it refuses.
 */
final class HiddenFieldGuard extends JsonSerializer<Object> {
    private final Class<?> type;
    private final List<String> hiddenFields;

    private HiddenFieldGuard(Class<?> type, List<String> hiddenFields) {
        this.type = type;
        this.hiddenFields = hiddenFields;
    }

    /** The module that installs the guard on a mapper. */
    static SimpleModule module() {
        SimpleModule m = new SimpleModule("bull4j-hidden-field-guard");
        m.setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public JsonSerializer<?> modifySerializer(SerializationConfig config, BeanDescription desc,
                                                      JsonSerializer<?> serializer) {
                boolean bean = serializer instanceof BeanSerializer && desc.findAnyGetter() == null;
                if (!(serializer instanceof UnknownSerializer) && !bean) {
                    return serializer; // Jackson's own serializers, @JsonValue, custom ones, any-getters: not ours
                }
                List<String> hidden = hiddenFields(config, desc);
                if (hidden.isEmpty() && serializer instanceof UnknownSerializer) {
                    return new HiddenFieldGuard(desc.getBeanClass(), hidden); // an empty class: written as {}
                }
                return hidden.isEmpty() ? serializer : new HiddenFieldGuard(desc.getBeanClass(), hidden);
            }
        });
        return m;
    }

    @Override
    public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
        if (!hiddenFields.isEmpty()) {
            throw InvalidDefinitionException.from(gen, type.getName() + " has fields " + hiddenFields
                    + " that Jackson cannot see (no getters, not public), so they would be left out of the JSON "
                    + "stored: add getters, make it a record, annotate the fields with @JsonProperty (or @JsonIgnore "
                    + "those not to store), or pass an ObjectMapper configured for it", provider.constructType(type));
        }
        gen.writeStartObject(value, 0);
        gen.writeEndObject();
    }

    /**
     * The instance fields of the class and its superclasses (up to the JDK's) that a serializer would be expected
     * to write and that no property Jackson writes stands for: not static, transient, synthetic or ignored.
     */
    private static List<String> hiddenFields(SerializationConfig config, BeanDescription desc) {
        Set<String> covered = new HashSet<>(desc.getIgnoredPropertyNames());
        covered.addAll(config.getDefaultPropertyIgnorals(desc.getBeanClass(), desc.getClassInfo())
                .findIgnoredForSerialization());
        for (BeanPropertyDefinition p : desc.findProperties()) {
            if (p.couldSerialize()) {
                covered.add(p.getInternalName());
                covered.add(p.getName());
                if (p.hasField()) {
                    covered.add(p.getField().getName());
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (Class<?> c = desc.getBeanClass(); c != null && !isJdk(c); c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isStatic(m) && !Modifier.isTransient(m) && !f.isSynthetic()
                        && !f.isAnnotationPresent(JsonIgnore.class) && !covered.contains(f.getName())
                        && !covered.contains(booleanPropertyName(f))) {
                    out.add(f.getName());
                }
            }
        }
        return out;
    }

    /**
     * The property a boolean field {@code isActive} stands for when its getter is {@code isActive()}: Jackson
     * names it {@code active}, and the field's value is written under that name. Null for any other field.
     */
    private static String booleanPropertyName(Field f) {
        String n = f.getName();
        boolean bool = f.getType() == boolean.class || f.getType() == Boolean.class;
        if (!bool || n.length() < 3 || !n.startsWith("is") || !Character.isUpperCase(n.charAt(2))) {
            return null;
        }
        return Character.toLowerCase(n.charAt(2)) + n.substring(3);
    }

    private static boolean isJdk(Class<?> c) {
        String n = c.getName();
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.sun.");
    }
}
