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
}
