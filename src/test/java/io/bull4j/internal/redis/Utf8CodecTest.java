package io.bull4j.internal.redis;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

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
            if (!s.contains("\uD800")) {
                assertEquals(s, buf.toString(StandardCharsets.UTF_8), "round trip");
            }
            buf.release();
        }
        assertTrue(Utf8Codec.INSTANCE.isEstimateExact());
        assertEquals(0, Utf8Codec.INSTANCE.estimateSize(null));
    }

    /** Node's Buffer (so BullMQ) writes an unpaired surrogate as U+FFFD; Netty alone would write '?'. */
    @Test
    void aLoneSurrogateIsWrittenAsTheReplacementCharacterAsNodeWritesIt() {
        String[][] cases = {
                {"line\uD800", "line\uFFFD"}, {"\uDC00x", "\uFFFDx"}, {"a\uDFFF\uD800b", "a\uFFFD\uFFFDb"},
                {"end\uD83D", "end\uFFFD"}, {"pair \uD83D\uDE00 ok", "pair \uD83D\uDE00 ok"}};
        for (String[] c : cases) {
            ByteBuf buf = Unpooled.buffer();
            Utf8Codec.INSTANCE.encodeValue(c[0], buf);
            assertEquals(c[1], buf.toString(StandardCharsets.UTF_8), c[0]);
            assertEquals(buf.readableBytes(), Utf8Codec.INSTANCE.estimateSize(c[0]), c[0]);
            buf.release();
            assertArrayEquals(c[1].getBytes(StandardCharsets.UTF_8),
                    StandardCharsets.UTF_8.decode(Utf8Codec.INSTANCE.encodeKey(c[0])).toString()
                            .getBytes(StandardCharsets.UTF_8), "encodeKey " + c[0]);
        }
        String plain = "no surrogates here";
        assertSame(plain, Utf8Codec.wellFormed(plain), "no copy when the text is well formed");
    }
}
