package io.bull4j.internal.redis;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;

/** Lettuce writes an argument straight into the command buffer only when the codec's size is exact. */
class Utf8CodecTest {
    @Test
    void theSizeIsTheByteCountWritten() {
        String[] samples = {"", "bull:emails:wait", "{\"to\":\"ana@example.com\"}", "caf\u00e9 \u20ac \u65e5\u672c",
                "emoji \uD83D\uDE00", "lone \uD800 surrogate", "x".repeat(10_000)};
        for (String s : samples) {
            ByteBuf buf = Unpooled.buffer();
            Utf8Codec.INSTANCE.encodeValue(s, buf);
            assertEquals(buf.readableBytes(), Utf8Codec.INSTANCE.estimateSize(s), s);
            assertEquals(s, Utf8Codec.INSTANCE.decodeValue(buf.nioBuffer()), "round trip");
            if (!s.contains("\uD800")) {
                assertEquals(s, buf.toString(StandardCharsets.UTF_8), "standard UTF-8 when there is no lone surrogate");
            }
            buf.release();
        }
        assertTrue(Utf8Codec.INSTANCE.isEstimateExact());
        assertEquals(0, Utf8Codec.INSTANCE.estimateSize(null));
    }

    /** The bytes BullMQ stores for a lone surrogate (its msgpack encoder's), not Lettuce's '?'; read back alike. */
    @Test
    void loneSurrogatesKeepTheirThreeByteForm() {
        String s = "a\uD800b\uDC00c\uD83D\uDE00";
        byte[] expected = {'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80, 'b', (byte) 0xED, (byte) 0xB0, (byte) 0x80, 'c',
                (byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80};
        ByteBuf buf = Unpooled.buffer();
        Utf8Codec.INSTANCE.encodeKey(s, buf);
        byte[] written = new byte[buf.readableBytes()];
        buf.readBytes(written);
        buf.release();
        assertArrayEquals(expected, written);
        ByteBuffer viaBuffer = Utf8Codec.INSTANCE.encodeValue(s);
        byte[] alsoWritten = new byte[viaBuffer.remaining()];
        viaBuffer.get(alsoWritten);
        assertArrayEquals(expected, alsoWritten);
        assertEquals(s, Utf8Codec.INSTANCE.decodeKey(ByteBuffer.wrap(expected)));
    }

    @Test
    void otherMalformedBytesStillReadAsReplacementCharacters() {
        byte[] bad = {'x', (byte) 0xFF, 'y', (byte) 0xC3, 'z', (byte) 0xE0, (byte) 0x80, (byte) 0x80};
        String standard = new String(bad, StandardCharsets.UTF_8);
        String ours = Utf8Codec.INSTANCE.decodeValue(ByteBuffer.wrap(bad));
        assertEquals("x\uFFFDy\uFFFDz", ours.substring(0, 5));
        assertTrue(ours.chars().skip(5).allMatch(c -> c == 0xFFFD), ours);
        assertEquals("caf\u00e9 \uFFFD", Utf8Codec.INSTANCE.decodeValue(ByteBuffer.wrap(
                "caf\u00e9 \uFFFD".getBytes(StandardCharsets.UTF_8))), "a real U+FFFD stays one");
        assertNotNull(standard);
    }
}
