package io.bull4j.internal.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Lettuce's UTF-8 string codec, with two changes.
 *
 * <p>An exact size for each argument. Lettuce's own codec only estimates the size of a UTF-8 string, so it encodes
 * every argument into a temporary pooled buffer and copies it; with an exact size it writes straight into the
 * command's buffer. Every script call has 10 to 20 arguments, and that copy was a large part of the Netty I/O
 * thread's time per job.
 *
 * <p>Lone UTF-16 surrogates survive ({@link Wtf8}): Lettuce writes them as '?', which silently changed a job name
 * or id; here they take the bytes BullMQ stores for them, and read back as the same Java string.
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
            CharSequence s = (CharSequence) value;
            // the byte count that encode will produce
            return Wtf8.hasSurrogate(s) ? Wtf8.length(s) : ByteBufUtil.utf8Bytes(s);
        }
        return super.estimateSize(value);
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    @Override
    public void encode(String str, ByteBuf target) {
        if (str == null) {
            return;
        }
        if (Wtf8.hasSurrogate(str)) {
            Wtf8.write(str, target);
        } else {
            ByteBufUtil.writeUtf8(target, str);
        }
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return bytes(key);
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return bytes(value);
    }

    private ByteBuffer bytes(String s) {
        if (s == null) {
            return ByteBuffer.wrap(new byte[0]);
        }
        if (!Wtf8.hasSurrogate(s)) {
            return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
        }
        ByteBuf buf = Unpooled.buffer(Wtf8.length(s));
        Wtf8.write(s, buf);
        return ByteBuffer.wrap(buf.array(), buf.arrayOffset(), buf.readableBytes());
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return decodeValue(bytes);
    }

    /**
     * Standard UTF-8 first (fast); only a text that decoded with U+FFFD in it is decoded again keeping surrogates.
     * The bytes are copied once, into a scratch array of the (I/O) thread, and the buffer's position is left as it
     * is: Lettuce's own decode wrapped each value in two more buffer objects, the largest share of the garbage a
     * job made.
     */
    @Override
    public String decodeValue(ByteBuffer bytes) {
        if (bytes == null) {
            return null;
        }
        int len = bytes.remaining();
        byte[] raw = len <= SCRATCH_BYTES ? SCRATCH.get() : new byte[len];
        bytes.get(bytes.position(), raw, 0, len);
        String s = new String(raw, 0, len, StandardCharsets.UTF_8);
        if (s.indexOf('\uFFFD') < 0) {
            return s;
        }
        return Wtf8.decode(raw, 0, len);
    }

    private static final int SCRATCH_BYTES = 4096;
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[SCRATCH_BYTES]);
}
