package io.bull4j.internal.codec;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreType;
import com.fasterxml.jackson.annotation.JsonProperty;
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
import java.util.Locale;
import java.util.Set;

/**
 * Refuses to write an object that has fields Jackson cannot see (private fields without getters, or read through
 * fluent accessors such as {@code amount()}): Jackson would leave them out, and a job's data would be stored with
 * all of its content ({@code {}}), or part of it, silently lost. {@link #module()} refuses the wholly invisible
 * ones, for every value; {@link #partialModule()} also the partly invisible ones, for job data only (a return
 * value refused after the processor did its work would fail the job and run it again). Fields that are static,
 * transient, {@code @JsonIgnore}d, write-only or named in {@code @JsonIgnoreProperties} are meant to be left out
 * and are not counted, nor are the JDK's own classes' fields; a field counts as written when a property of the
 * same name, or a getter named after it, is written (names compared ignoring case: {@code xPos} is Jackson's
 * {@code xpos}). An empty class is still written as {@code {}}. It looks at each class once, when Jackson builds
 * its serializer, and takes that serializer's place only for a class it refuses.
 */
final class HiddenFieldGuard extends JsonSerializer<Object> {
    private final Class<?> type;
    private final List<String> hiddenFields;

    private HiddenFieldGuard(Class<?> type, List<String> hiddenFields) {
        this.type = type;
        this.hiddenFields = hiddenFields;
    }

    /** The guard for objects without any visible property: refused when they have fields, else written {}. */
    static SimpleModule module() {
        SimpleModule m = new SimpleModule("bull4j-hidden-field-guard");
        m.setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public JsonSerializer<?> modifySerializer(SerializationConfig config, BeanDescription desc,
                                                      JsonSerializer<?> serializer) {
                if (serializer instanceof UnknownSerializer) {
                    return new HiddenFieldGuard(desc.getBeanClass(), hiddenFields(config, desc));
                }
                return serializer;
            }
        });
        return m;
    }

    /** The guard for objects with some fields invisible, added to {@link #module()}'s, for job data. */
    static SimpleModule partialModule() {
        SimpleModule m = new SimpleModule("bull4j-partly-hidden-field-guard");
        m.setSerializerModifier(new BeanSerializerModifier() {
            @Override
            public JsonSerializer<?> modifySerializer(SerializationConfig config, BeanDescription desc,
                                                      JsonSerializer<?> serializer) {
                if (!(serializer instanceof BeanSerializer) || desc.findAnyGetter() != null) {
                    return serializer; // Jackson's own serializers, @JsonValue, custom ones, any-getters: not ours
                }
                List<String> hidden = hiddenFields(config, desc);
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
        Set<String> covered = new HashSet<>();
        desc.getIgnoredPropertyNames().forEach(n -> covered.add(n.toLowerCase(Locale.ROOT)));
        config.getDefaultPropertyIgnorals(desc.getBeanClass(), desc.getClassInfo()).findIgnoredForSerialization()
                .forEach(n -> covered.add(n.toLowerCase(Locale.ROOT)));
        for (BeanPropertyDefinition p : desc.findProperties()) {
            if (p.couldSerialize()) {
                covered.add(p.getInternalName().toLowerCase(Locale.ROOT));
                covered.add(p.getName().toLowerCase(Locale.ROOT));
                if (p.hasField()) {
                    covered.add(p.getField().getName().toLowerCase(Locale.ROOT));
                }
                if (p.hasGetter()) { // getX / isX: the field x it reads, whatever Jackson named the property
                    String g = p.getGetter().getName();
                    String bare = g.startsWith("get") ? g.substring(3) : g.startsWith("is") ? g.substring(2) : g;
                    covered.add(bare.toLowerCase(Locale.ROOT));
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (Class<?> c = desc.getBeanClass(); c != null && !isJdk(c); c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isStatic(m) && !Modifier.isTransient(m) && !f.isSynthetic()
                        && !f.isAnnotationPresent(JsonIgnore.class) && !writeOnly(f)
                        && !f.getType().isAnnotationPresent(JsonIgnoreType.class)
                        && !covered.contains(f.getName().toLowerCase(Locale.ROOT))
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
        return n.substring(2).toLowerCase(Locale.ROOT);
    }

    /** A field {@code @JsonProperty(access = WRITE_ONLY)}: read, never written, on purpose (a password). */
    private static boolean writeOnly(Field f) {
        JsonProperty p = f.getAnnotation(JsonProperty.class);
        return p != null && p.access() == JsonProperty.Access.WRITE_ONLY;
    }

    private static boolean isJdk(Class<?> c) {
        String n = c.getName();
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.sun.");
    }
}
