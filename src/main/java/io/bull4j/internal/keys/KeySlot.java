package io.bull4j.internal.keys;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's key-to-slot mapping: CRC-16/XMODEM of the key's hash tag (or of the whole key when it has
 * none), modulo 16384. A script may only touch keys of one slot, so this decides whether a queue can run there.
 */
public final class KeySlot {
    /** The number of slots in a Redis Cluster. */
    public static final int SLOTS = 16384;

    private KeySlot() {
    }

    /** The slot Redis Cluster assigns {@code key} to, hashing its UTF-8 bytes as Redis does. */
    public static int of(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            // an empty tag "{}" does not count: Redis then hashes the whole key
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        return crc16(bytes, from, to) & (SLOTS - 1);
    }

    /**
     * The hash tag Redis would use for any key that starts with {@code start}, whatever follows it; null when
     * what follows can change the tag (no complete, non-empty tag inside {@code start}).
     */
    public static String tagWithin(String start) {
        int open = start.indexOf('{');
        if (open < 0) {
            return null;
        }
        int close = start.indexOf('}', open + 1);
        return close > open + 1 ? start.substring(open + 1, close) : null;
    }

    /** CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection), bit by bit: keys are short. */
    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xffff;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
