package io.bull4j.interop;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.Range;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.sync.RedisCommands;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The whole state of one Redis database, normalized so that two runs of a scenario compare equal when they left
 * the same state: a sorted map from a path ({@code key}, {@code key field}, {@code key #n}) to a printable value.
 *
 * <p>What is normalized, and nothing else:
 * <ul>
 *   <li>Wall-clock values: a number (or a score divided by 4096, for the delayed set) that falls inside the run's
 *       time window becomes {@code <t>}. Explicit timestamps chosen far from now stay literal.</li>
 *   <li>Lock tokens become {@code <token>}, the library named in {@code meta.version} {@code <library>} (bull4j
 *       writes its own name there, documented).</li>
 *   <li>Stack traces are language-specific: only how many a job keeps is compared.</li>
 *   <li>JSON texts (data, returnvalue, progress, opts and the JSON fields of events) are compared as JSON
 *       values, not spellings: see {@link #number} for numbers; strings by their UTF-16 units (a lone surrogate
 *       shows as {@code \ud800}). Key order is kept, except in opts (an option object has no meaningful order).</li>
 *   <li>{@code completed} and {@code failed} are compared as sets: their scores are finish times, and jobs that
 *       finish in one millisecond sort by id. The order of finishing is in the events stream, which is compared
 *       entry by entry.</li>
 *   <li>The {@code marker} set is left out: whether a closing worker leaves a wake-up hint, and which, depends on
 *       timing even with bullmq alone, and bull4j's markers differ by design (docs/compatibility.md). Waking on
 *       markers is tested by InteropDataDelayTest.</li>
 *   <li>Stream entry ids are dropped; entries keep their order, fields theirs.</li>
 * </ul>
 * Bytes that are not UTF-8 print as {@code \xNN}, so a stored {@code ?} never equals a stored U+FFFD.
 */
final class RedisSnapshot {
    private static final ObjectMapper EXACT = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
    private static final long DELAY_SHIFT = 4096;

    private final RedisCommands<byte[], byte[]> redis;
    private final long windowStart;
    private final long windowEnd;
    private final TreeMap<String, String> out = new TreeMap<>();

    private RedisSnapshot(RedisCommands<byte[], byte[]> redis, long windowStart, long windowEnd) {
        this.redis = redis;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
    }

    /**
     * Every key of the database; times from {@code runStartMillis} (minus a minute of clock slack) up to a day
     * after {@code runEndMillis} (delays not yet due) count as wall-clock.
     */
    static TreeMap<String, String> take(RedisCommands<byte[], byte[]> redis, long runStartMillis, long runEndMillis) {
        RedisSnapshot s = new RedisSnapshot(redis, runStartMillis - 60_000, runEndMillis + 86_400_000);
        for (byte[] key : s.keys()) {
            s.read(key);
        }
        return s.out;
    }

    /** The differences of two snapshots by path, each naming both values; empty when equal. */
    static TreeMap<String, String> diff(Map<String, String> expected, Map<String, String> actual,
                                        String expectedName, String actualName) {
        TreeSet<String> paths = new TreeSet<>(expected.keySet());
        paths.addAll(actual.keySet());
        TreeMap<String, String> out = new TreeMap<>();
        for (String p : paths) {
            String e = expected.get(p);
            String a = actual.get(p);
            if (e == null || !e.equals(a)) {
                out.put(p, p + "\n      " + expectedName + ": " + (e == null ? "(absent)" : e)
                        + "\n      " + actualName + ": " + (a == null ? "(absent)" : a));
            }
        }
        return out;
    }

    private List<byte[]> keys() {
        List<byte[]> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<byte[]> page = redis.scan(cursor, ScanArgs.Builder.limit(1000));
            keys.addAll(page.getKeys());
            cursor = page;
        } while (!cursor.isFinished());
        return keys;
    }

    private void read(byte[] keyBytes) {
        String key = text(keyBytes);
        if (key.endsWith(":marker")) {
            return; // see the class comment
        }
        String type = redis.type(keyBytes);
        if (redis.pttl(keyBytes) > 0) {
            out.put(key + " (expires)", "yes");
        }
        switch (type) {
            case "string" -> out.put(key, "string " + (key.endsWith(":lock") ? "<token>" : time(text(redis.get(keyBytes)))));
            case "hash" -> redis.hgetall(keyBytes).forEach((f, v) -> {
                String field = text(f);
                out.put(key + " " + field, hashField(key, field, text(v)));
            });
            case "list" -> {
                List<String> items = new ArrayList<>();
                for (byte[] v : redis.lrange(keyBytes, 0, -1)) {
                    items.add(text(v));
                }
                out.put(key, "list " + items);
            }
            case "zset" -> {
                List<String> items = new ArrayList<>();
                boolean delayed = key.endsWith(":delayed");
                for (ScoredValue<byte[]> v : redis.zrangeWithScores(keyBytes, 0, -1)) {
                    items.add(text(v.getValue()) + "@" + score(v.getScore(), delayed));
                }
                if (key.endsWith(":completed") || key.endsWith(":failed")) {
                    // scored by finish time: jobs finished in one millisecond tie and sort by id
                    Collections.sort(items);
                    out.put(key, "zset as a set " + items);
                } else {
                    out.put(key, "zset " + items);
                }
            }
            case "set" -> {
                List<String> items = new ArrayList<>();
                for (byte[] v : redis.smembers(keyBytes)) {
                    items.add(text(v));
                }
                Collections.sort(items);
                out.put(key, "set " + items);
            }
            case "stream" -> stream(key, keyBytes);
            default -> out.put(key, type);
        }
    }

    private void stream(String key, byte[] keyBytes) {
        List<StreamMessage<byte[], byte[]>> entries = redis.xrange(keyBytes, Range.create("-", "+"));
        TreeMap<String, Integer> counts = new TreeMap<>();
        int n = 0;
        for (StreamMessage<byte[], byte[]> m : entries) {
            StringBuilder line = new StringBuilder();
            String event = null;
            for (Map.Entry<byte[], byte[]> f : m.getBody().entrySet()) {
                String field = text(f.getKey());
                String value = text(f.getValue());
                if (field.equals("event")) {
                    event = value;
                }
                boolean json = field.equals("returnvalue") || field.equals("data");
                line.append(line.length() == 0 ? "" : " ").append(field).append('=')
                        .append(json ? json(value, false) : time(value));
            }
            counts.merge(String.valueOf(event), 1, Integer::sum);
            out.put(String.format("%s #%03d", key, n++), line.toString());
        }
        counts.forEach((event, count) -> out.put(key + " count " + event, String.valueOf(count)));
    }

    private String hashField(String key, String field, String value) {
        if (key.endsWith(":meta")) {
            return field.equals("version") ? value.replaceFirst("^[^:]+:.*$", "<library>") : value;
        }
        return switch (field) {
            case "data", "returnvalue", "progress" -> json(value, false);
            case "opts" -> json(value, true);
            case "stacktrace" -> "stack traces: " + stackCount(value);
            default -> time(value);
        };
    }

    private static String stackCount(String value) {
        try {
            JsonNode n = EXACT.readTree(value);
            return n.isArray() ? String.valueOf(n.size()) : "not an array: " + value;
        } catch (JsonProcessingException e) {
            return "not JSON: " + value;
        }
    }

    /** A number inside the run's window is a wall-clock value. */
    private String time(String value) {
        try {
            double d = Double.parseDouble(value);
            return isTime(d) ? "<t>" : value;
        } catch (NumberFormatException e) {
            return value;
        }
    }

    private boolean isTime(double millis) {
        return millis >= windowStart && millis <= windowEnd;
    }

    private String score(double score, boolean delayed) {
        if (delayed && isTime(Math.floor(score / DELAY_SHIFT))) {
            long time = (long) Math.floor(score / DELAY_SHIFT);
            return "<t>*4096+" + (long) (score - (double) time * DELAY_SHIFT);
        }
        if (isTime(score)) {
            return "<t>";
        }
        return BigDecimal.valueOf(score).stripTrailingZeros().toPlainString();
    }

    /** A JSON text as its value: numbers exact and spelled alike, strings escaped where not printable. */
    private static String json(String text, boolean sortKeys) {
        try {
            JsonNode n = EXACT.readTree(text);
            if (n == null) {
                return "(empty)";
            }
            StringBuilder sb = new StringBuilder();
            write(n, sortKeys, sb);
            return sb.toString();
        } catch (JsonProcessingException e) {
            return "not JSON: " + text;
        }
    }

    private static void write(JsonNode n, boolean sortKeys, StringBuilder sb) {
        if (n.isObject()) {
            Iterator<String> names = sortKeys ? new TreeSet<>(iterable(n.fieldNames())).iterator() : n.fieldNames();
            sb.append('{');
            boolean first = true;
            while (names.hasNext()) {
                String name = names.next();
                sb.append(first ? "" : ",").append(quote(name)).append(':');
                write(n.get(name), sortKeys, sb);
                first = false;
            }
            sb.append('}');
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                sb.append(i == 0 ? "" : ",");
                write(n.get(i), sortKeys, sb);
            }
            sb.append(']');
        } else if (n.isNumber()) {
            sb.append(number(n.decimalValue()));
        } else if (n.isTextual()) {
            sb.append(quote(n.textValue()));
        } else {
            sb.append(n); // true, false, null
        }
    }

    /**
     * A number as the value a reader gets: an integral one within a long exactly (so {@code 1}, {@code 1.0} and
     * {@code -0.0} agree), any other as the double it denotes (so {@code 1e+21} equals {@code 1.0E21}, and Java's
     * {@code 4.9E-324} equals JavaScript's {@code 5e-324}: the same double, spelled by each language's printer).
     */
    private static String number(BigDecimal v) {
        BigDecimal stripped = v.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.abs().compareTo(LONG_RANGE) < 0) {
            return stripped.toBigIntegerExact().toString();
        }
        return Double.toString(v.doubleValue());
    }

    /** Beyond a long, integral values are doubles on both sides (1e21, 1.7976931348623157e308). */
    private static final BigDecimal LONG_RANGE = BigDecimal.valueOf(2).pow(63);

    private static List<String> iterable(Iterator<String> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    /** A string in quotes with control characters and lone surrogates escaped, so a diff shows them. */
    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pairedHigh = Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1));
            boolean pairedLow = Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 || (Character.isSurrogate(c) && !pairedHigh && !pairedLow)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** Bytes as UTF-8 text, or, where they are not valid UTF-8, with each byte outside ASCII as \xNN. */
    static String text(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            StringBuilder sb = new StringBuilder();
            for (byte b : bytes) {
                sb.append(b >= 0x20 && b < 0x7f ? String.valueOf((char) b) : String.format("\\x%02x", b & 0xff));
            }
            return sb.toString();
        }
    }
}
