package io.bull4j.internal.codec;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** JSON text as JSON.stringify writes it, and plain strings as Node's UTF-8 encoder sends them. */
class Utf16Test {
    @Test
    void loneSurrogatesAreEscapedInJsonAndPairsAreKept() {
        String json = Json.write(Json.DEFAULT, Map.of("k\uD800", List.of("a\uDC00b", "\uD83D\uDE00", "\uDBFF")), "v");
        assertEquals("{\"k\\ud800\":[\"a\\udc00b\",\"\uD83D\uDE00\",\"\\udbff\"]}", json);
        assertEquals(Map.of("k\uD800", List.of("a\uDC00b", "\uD83D\uDE00", "\uDBFF")),
                Json.read(Json.DEFAULT, json, Json.DEFAULT.constructType(Map.class)), "reads back the same strings");
    }

    @Test
    void escapesUseLowerCaseHexAsJsonStringify() {
        assertEquals("\"\\u0001\\u001f\\b\\t\\n\\f\\r\\\"\\\\/\u007f\"",
                Json.write(Json.DEFAULT, "\u0001\u001f\b\t\n\f\r\"\\/\u007f", "v"));
        // a user's mapper with Jackson's upper-case default gets the same text
        assertEquals("\"\\u001f\"", Json.write(new com.fasterxml.jackson.databind.ObjectMapper(), "\u001f", "v"));
        // text that merely looks like an escape is left alone: the backslash itself is escaped
        assertEquals("\"\\\\uABCD\"", Json.write(Json.DEFAULT, "\\uABCD", "v"));
    }

    @Test
    void unchangedTextIsReturnedAsIs() {
        String json = "{\"a\":\"b \uD83D\uDE00\"}";
        assertSame(json, Utf16.jsonLikeNode(json));
        String plain = "no surrogates";
        assertSame(plain, Utf16.replaceLoneSurrogates(plain));
    }

    @Test
    void plainStringsGetTheReplacementCharacterAsNodeSendsThem() {
        assertEquals("a\uFFFDb\uFFFD\uD83D\uDE00\uFFFD", Utf16.replaceLoneSurrogates("a\uD800b\uDC00\uD83D\uDE00\uD800"));
        assertNull(Utf16.replaceLoneSurrogates(null));
    }

    @Test
    void surrogateEscapesAreDecodedBeforeJacksonReadsThemAndEscapedBackslashesAreNot() {
        // Jackson 2.23 refuses an escaped lone surrogate in an object key; JSON.stringify writes exactly that
        assertEquals("{\"k\uD800\":\"\uDC00\uD83D\uDE00\"}",
                Utf16.rawSurrogateEscapes("{\"k\\ud800\":\"\\uDC00\\ud83d\\ude00\"}"));
        String literal = "{\"a\":\"\\\\ud800 \\u0041\"}"; // an escaped backslash, then the text ud800
        assertSame(literal, Utf16.rawSurrogateEscapes(literal));
        assertEquals("\\\\\uD800", Utf16.rawSurrogateEscapes("\\\\\\ud800"));
        assertEquals("\\ud8", Utf16.rawSurrogateEscapes("\\ud8"), "a cut escape is left to the parser");
        assertEquals(Map.of("k\uD800", "v"), Json.read(Json.DEFAULT, "{\"k\\ud800\":\"v\"}",
                Json.DEFAULT.constructType(Map.class)));
        assertEquals("\uDBFF", Json.tree("{\"\\udbff\":1}").fieldNames().next());
    }
}
