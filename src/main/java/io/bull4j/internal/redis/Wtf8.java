package io.bull4j.internal.redis;

import io.netty.buffer.ByteBuf;

/**
 * UTF-8 that keeps lone UTF-16 surrogates (WTF-8): a surrogate without its partner is written as the three bytes
 * its code unit would take (U+D800 as ED A0 80) instead of '?', and read back as that code unit. BullMQ stores a
 * job's name, id and worker name with these bytes (its msgpack encoder writes them so), and a Java string holds
 * such surrogates as freely as a JavaScript one. Every other string gives the bytes of standard UTF-8.
 */
final class Wtf8 {
    private static final char REPLACEMENT = '\uFFFD';

    private Wtf8() {
    }

    /** True when {@code s} has a surrogate (paired or not): only then does the slow path matter. */
    static boolean hasSurrogate(CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (Character.isSurrogate(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** The number of bytes {@link #write} gives. */
    static int length(CharSequence s) {
        int bytes = 0;
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3; // the rest of the BMP, and a lone surrogate
            }
        }
        return bytes;
    }

    static void write(CharSequence s, ByteBuf out) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out.writeByte(c);
            } else if (c < 0x800) {
                out.writeByte(0xC0 | (c >> 6));
                out.writeByte(0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out.writeByte(0xF0 | (cp >> 18));
                out.writeByte(0x80 | ((cp >> 12) & 0x3F));
                out.writeByte(0x80 | ((cp >> 6) & 0x3F));
                out.writeByte(0x80 | (cp & 0x3F));
            } else {
                out.writeByte(0xE0 | (c >> 12));
                out.writeByte(0x80 | ((c >> 6) & 0x3F));
                out.writeByte(0x80 | (c & 0x3F));
            }
        }
    }

    /**
     * Decodes UTF-8, reading the three-byte form of a surrogate as that code unit. Other malformed bytes become
     * U+FFFD, one per byte that starts no valid sequence.
     */
    static String decode(byte[] b, int from, int to) {
        StringBuilder out = new StringBuilder(to - from);
        int i = from;
        while (i < to) {
            int b0 = b[i] & 0xFF;
            if (b0 < 0x80) {
                out.append((char) b0);
                i++;
            } else if (b0 >= 0xC2 && b0 <= 0xDF && i + 1 < to && cont(b[i + 1])) {
                out.append((char) (((b0 & 0x1F) << 6) | (b[i + 1] & 0x3F)));
                i += 2;
            } else if (b0 >= 0xE0 && b0 <= 0xEF && i + 2 < to && cont(b[i + 1]) && cont(b[i + 2])
                    && !(b0 == 0xE0 && (b[i + 1] & 0xFF) < 0xA0)) {
                out.append((char) (((b0 & 0x0F) << 12) | ((b[i + 1] & 0x3F) << 6) | (b[i + 2] & 0x3F)));
                i += 3;
            } else if (b0 >= 0xF0 && b0 <= 0xF4 && i + 3 < to && cont(b[i + 1]) && cont(b[i + 2]) && cont(b[i + 3])) {
                int cp = ((b0 & 0x07) << 18) | ((b[i + 1] & 0x3F) << 12) | ((b[i + 2] & 0x3F) << 6) | (b[i + 3] & 0x3F);
                if (cp < 0x10000 || cp > 0x10FFFF) {
                    out.append(REPLACEMENT);
                    i++;
                } else {
                    out.append(Character.highSurrogate(cp)).append(Character.lowSurrogate(cp));
                    i += 4;
                }
            } else {
                out.append(REPLACEMENT);
                i++;
            }
        }
        return out.toString();
    }

    private static boolean cont(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
