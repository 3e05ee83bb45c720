package io.bull4j.internal.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Lettuce's UTF-8 string codec, with an exact size for each argument. Lettuce's own codec only estimates the
 * size of a UTF-8 string, so it encodes every argument into a temporary pooled buffer and copies it; with an
 * exact size it writes straight into the command's buffer. Every script call has 10 to 20 arguments, and that
 * copy was a large part of the Netty I/O thread's time per job.
 *
 * <p>An unpaired UTF-16 surrogate is written as U+FFFD (bytes EF BF BD), as Node's Buffer writes it for BullMQ,
 * not as Netty's {@code ?}: a log line or failure message then reads the same whichever side stored it.
 */
final class Utf8Codec extends StringCodec {
    static final Utf8Codec INSTANCE = new Utf8Codec();
    private static final char REPLACEMENT = '\uFFFD';

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
            return ByteBufUtil.utf8Bytes(wellFormed((CharSequence) value));
        }
        return super.estimateSize(value);
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    @Override
    public void encode(String str, ByteBuf target) {
        super.encode(str == null ? null : wellFormed(str).toString(), target);
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return super.encodeKey(key == null ? null : wellFormed(key).toString());
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return super.encodeValue(value == null ? null : wellFormed(value).toString());
    }

    /** The text itself when every surrogate is paired (the usual case, no copy), else a copy with U+FFFD for each lone one. */
    static CharSequence wellFormed(CharSequence s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return replaceLoneSurrogates(s, i);
                }
            }
        }
        return s;
    }

    private static String replaceLoneSurrogates(CharSequence s, int from) {
        StringBuilder sb = new StringBuilder(s.length()).append(s, 0, from);
        int n = s.length();
        for (int i = from; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                sb.append(c).append(s.charAt(++i));
            } else {
                sb.append(Character.isSurrogate(c) ? REPLACEMENT : c);
            }
        }
        return sb.toString();
    }
}
