package io.bull4j.internal.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBufUtil;

import java.nio.charset.StandardCharsets;

/**
 * Lettuce's UTF-8 string codec, with an exact size for each argument. Lettuce's own codec only estimates the
 * size of a UTF-8 string, so it encodes every argument into a temporary pooled buffer and copies it; with an
 * exact size it writes straight into the command's buffer. Every script call has 10 to 20 arguments, and that
 * copy was a large part of the Netty I/O thread's time per job.
 */
final class Utf8Codec extends StringCodec {
    static final Utf8Codec INSTANCE = new Utf8Codec();

    private Utf8Codec() {
        super(StandardCharsets.UTF_8);
    }

    @Override
    public int estimateSize(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof CharSequence) {
            // the byte count that ByteBufUtil.writeUtf8, which StringCodec writes with, will produce
            return ByteBufUtil.utf8Bytes((CharSequence) value);
        }
        return super.estimateSize(value);
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }
}
