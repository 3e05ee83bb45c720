package io.bull4j.internal.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonGeneratorDecorator;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;

import java.io.IOException;

/**
 * NaN and the infinities written as {@code null}, as {@code JSON.stringify} writes them: Jackson's default is the
 * strings {@code "NaN"} and {@code "Infinity"}, which a Node consumer would read as strings. Every double and float
 * the default mapper writes goes through here (boxed, primitive, in arrays and maps).
 */
final class NonFiniteAsNull implements JsonGeneratorDecorator {
    @Override
    public JsonGenerator decorate(JsonFactory factory, JsonGenerator generator) {
        return new JsonGeneratorDelegate(generator, false) {
            @Override
            public void writeNumber(double v) throws IOException {
                if (Double.isFinite(v)) {
                    super.writeNumber(v);
                } else {
                    writeNull();
                }
            }

            @Override
            public void writeArray(double[] array, int offset, int length) throws IOException {
                // the delegate would hand the whole array to the generator, past writeNumber above
                writeStartArray(array, length);
                for (int i = offset; i < offset + length; i++) {
                    writeNumber(array[i]);
                }
                writeEndArray();
            }

            @Override
            public void writeNumber(float v) throws IOException {
                if (Float.isFinite(v)) {
                    super.writeNumber(v);
                } else {
                    writeNull();
                }
            }
        };
    }
}
