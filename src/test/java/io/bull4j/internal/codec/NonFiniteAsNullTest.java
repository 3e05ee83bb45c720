package io.bull4j.internal.codec;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** NaN and the infinities are stored as JSON.stringify stores them: null (Jackson's default is a string). */
class NonFiniteAsNullTest {
    record Reading(double value, float ratio, Double boxed) {
    }

    @Test
    void everyNonFiniteNumberIsNullAndEveryOtherIsKept() {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("nan", Double.NaN);
        data.put("inf", Double.POSITIVE_INFINITY);
        data.put("ninf", Double.NEGATIVE_INFINITY);
        data.put("fnan", Float.NaN);
        data.put("list", Arrays.asList(1.5, Double.NaN));
        data.put("array", new double[] {2.5, Double.POSITIVE_INFINITY});
        data.put("floats", new float[] {Float.NEGATIVE_INFINITY, 0.25f});
        data.put("record", new Reading(Double.NaN, Float.POSITIVE_INFINITY, Double.NaN));
        data.put("fine", 0.1);
        // what JSON.stringify gives for the same values in Node
        assertEquals("{\"nan\":null,\"inf\":null,\"ninf\":null,\"fnan\":null,\"list\":[1.5,null],"
                + "\"array\":[2.5,null],\"floats\":[null,0.25],\"record\":{\"value\":null,\"ratio\":null,"
                + "\"boxed\":null},\"fine\":0.1}", Json.write(Json.DEFAULT, data, "data"));
        assertEquals("null", Json.write(Json.DEFAULT, Double.NaN, "returnvalue"));
    }
}
