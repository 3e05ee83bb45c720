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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 *   <li>Stream entry ids are dropped; entries keep their order, fields theirs. With {@code perJobOrder} (a worker
 *       of concurrency above 1, whose jobs finish in an order that timing decides) a stream is compared per job
 *       instead: each job's entries in their order ({@code key job <id> #n}), and the entries that name no job by
 *       their count only.</li>
 *   <li>Job scheduler runs ({@code repeat:<id>:<millis>}, issue 10): a run's time inside the window is
 *       written relative to the earliest run of the same scheduler that the snapshot holds, {@code <t:id>},
 *       {@code <t:id+60000>}, wherever the id appears (key names, members, stream fields, {@code opts.jobId}).
 *       So the gap between runs, which the schedule decides, stays compared; only where the first run fell in
 *       wall-clock time is not. Numbers that must equal a run's time are shown by that label only when they do:
 *       the {@code repeat} ZSET's score of a scheduler, the {@code delayed} score and the {@code delayed}
 *       event of a run, its {@code opts.prevMillis}. A run's {@code delay} (hash field and {@code opts.delay})
 *       shows as {@code <due-timestamp>} only when it equals its due time minus its {@code timestamp}, and an
 *       every scheduler's {@code offset} (hash field, {@code opts.repeat.offset}) as {@code <t:id mod every>}
 *       only when it equals its runs' time modulo {@code every}. Any other value stays literal (or
 *       {@code <t>}), so a run due at the wrong time, or a wrong delay, still differs. Times outside the
 *       window (a cron run next year) stay literal: a time zone's arithmetic is then compared exactly.</li>
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
    private final boolean perJobOrder;
    /** Each job scheduler's run times (inside the window) seen anywhere in the database, for the labels. */
    private final TreeMap<String, TreeSet<Long>> runs = new TreeMap<>();
    /** Normalized job id to the id as stored, for the API reads that follow the snapshot. */
    private final TreeMap<String, String> rawIds = new TreeMap<>();
    /** The scheduler run whose key is being read, or null: its own time and delay get their labels. */
    private Run context;

    /** A scheduler run: the scheduler's id and the run's time. */
    private record Run(String scheduler, long millis) {
    }

    private static final Pattern RUN_ID = Pattern.compile("repeat:(.+?):(\\d{10,})(?!\\d)");

    private RedisSnapshot(RedisCommands<byte[], byte[]> redis, long windowStart, long windowEnd,
                          boolean perJobOrder) {
        this.redis = redis;
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
        this.perJobOrder = perJobOrder;
    }

    /**
     * Every key of the database; times from {@code runStartMillis} (minus a minute of clock slack) up to a day
     * after {@code runEndMillis} (delays not yet due) count as wall-clock.
     */
    static TreeMap<String, String> take(RedisCommands<byte[], byte[]> redis, long runStartMillis, long runEndMillis) {
        return taken(redis, runStartMillis, runEndMillis).out;
    }

    /** As {@link #take}, keeping the normalizer for what is read through the APIs afterwards. */
    static RedisSnapshot taken(RedisCommands<byte[], byte[]> redis, long runStartMillis, long runEndMillis) {
        return taken(redis, runStartMillis, runEndMillis, false);
    }

    /** As {@link #taken(RedisCommands, long, long)}; with {@code perJobOrder}, streams are compared per job. */
    static RedisSnapshot taken(RedisCommands<byte[], byte[]> redis, long runStartMillis, long runEndMillis,
                               boolean perJobOrder) {
        RedisSnapshot s = new RedisSnapshot(redis, runStartMillis - 60_000, runEndMillis + 86_400_000, perJobOrder);
        List<byte[]> keys = s.keys();
        for (byte[] key : keys) {
            s.collectRuns(key);
        }
        for (byte[] key : keys) {
            s.read(key);
        }
        return s;
    }

    /** The normalized state. */
    TreeMap<String, String> state() {
        return out;
    }

    /** The id as stored of a job id as the snapshot shows it. */
    String rawId(String normalizedId) {
        return rawIds.getOrDefault(normalizedId, normalizedId);
    }

    /** A scheduler's time as the snapshot labels it (for API reads of {@code next}). */
    String schedulerTime(String scheduler, long millis) {
        TreeSet<Long> times = runs.get(scheduler);
        if (times != null && times.contains(millis)) {
            return label(scheduler, millis);
        }
        return time(Long.toString(millis));
    }

    /** A scheduler's offset as the snapshot labels it. */
    String schedulerOffset(String scheduler, long offset, long every) {
        TreeSet<Long> times = runs.get(scheduler);
        if (every > 0 && times != null && !times.isEmpty() && Math.floorMod(times.first(), every) == offset) {
            return "<t:" + scheduler + " mod every>";
        }
        return Long.toString(offset);
    }

    /** Every scheduler run named in a key's name, members or stream fields. */
    private void collectRuns(byte[] keyBytes) {
        String key = text(keyBytes);
        noteRuns(key);
        switch (redis.type(keyBytes)) {
            case "list" -> redis.lrange(keyBytes, 0, -1).forEach(v -> noteRuns(text(v)));
            case "zset" -> redis.zrange(keyBytes, 0, -1).forEach(v -> noteRuns(text(v)));
            case "set" -> redis.smembers(keyBytes).forEach(v -> noteRuns(text(v)));
            case "stream" -> redis.xrange(keyBytes, Range.create("-", "+"))
                    .forEach(m -> m.getBody().values().forEach(v -> noteRuns(text(v))));
            default -> {
            }
        }
    }

    private void noteRuns(String text) {
        Matcher m = RUN_ID.matcher(text);
        while (m.find()) {
            long millis = Long.parseLong(m.group(2));
            if (isTime(millis)) {
                runs.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(millis);
            }
        }
    }

    private String label(String scheduler, long millis) {
        long delta = millis - runs.get(scheduler).first();
        return delta == 0 ? "<t:" + scheduler + ">" : "<t:" + scheduler + "+" + delta + ">";
    }

    /** A text with each scheduler run id in it written with its label. */
    private String ids(String text) {
        if (runs.isEmpty() || !text.contains("repeat:")) {
            return text;
        }
        Matcher m = RUN_ID.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            long millis = Long.parseLong(m.group(2));
            String replacement = runs.containsKey(m.group(1)) && runs.get(m.group(1)).contains(millis)
                    ? "repeat:" + m.group(1) + ":" + label(m.group(1), millis) : m.group();
            m.appendReplacement(sb, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(sb);
        String normalized = sb.toString();
        rawIds.putIfAbsent(normalized, text);
        return normalized;
    }

    /**
     * The scheduler run an id names, or null. A run due outside the window (next year) keeps its literal time but
     * is still a run: its delay is compared against its due time too.
     */
    private Run runOf(String id) {
        Matcher m = RUN_ID.matcher(id);
        if (m.matches()) {
            return new Run(m.group(1), Long.parseLong(m.group(2)));
        }
        return null;
    }

    /** Whether a run's time is one the snapshot labels (inside the window). */
    private boolean labelled(Run run) {
        return runs.containsKey(run.scheduler()) && runs.get(run.scheduler()).contains(run.millis());
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
        String rawKey = text(keyBytes);
        if (rawKey.endsWith(":marker")) {
            return; // see the class comment
        }
        String key = ids(rawKey);
        // a job hash of a scheduler run (bull:<queue>:repeat:<id>:<millis>): its own time gets its label
        int queueEnd = rawKey.indexOf(':', rawKey.indexOf(':') + 1);
        context = queueEnd > 0 ? runOf(rawKey.substring(queueEnd + 1)) : null;
        String type = redis.type(keyBytes);
        if (type.equals("none")) {
            return; // expired between the listing and now (a key with a TTL of a few ms): as if never listed
        }
        if (redis.pttl(keyBytes) > 0) {
            out.put(key + " (expires)", "yes");
        }
        switch (type) {
            case "string" -> out.put(key, "string " + (key.endsWith(":lock") ? "<token>" : time(text(redis.get(keyBytes)))));
            case "hash" -> {
                Map<String, String> fields = new TreeMap<>();
                redis.hgetall(keyBytes).forEach((f, v) -> fields.put(text(f), text(v)));
                fields.forEach((field, v) -> out.put(key + " " + field, hashField(rawKey, field, v, fields)));
            }
            case "list" -> {
                List<String> items = new ArrayList<>();
                for (byte[] v : redis.lrange(keyBytes, 0, -1)) {
                    items.add(ids(text(v)));
                }
                out.put(key, "list " + items);
            }
            case "zset" -> {
                List<String> items = new ArrayList<>();
                boolean delayed = key.endsWith(":delayed");
                boolean schedulers = key.endsWith(":repeat");
                for (ScoredValue<byte[]> v : redis.zrangeWithScores(keyBytes, 0, -1)) {
                    String member = text(v.getValue());
                    if (schedulers && runs.containsKey(member) && runs.get(member).contains((long) v.getScore())) {
                        items.add(member + "@" + label(member, (long) v.getScore()));
                        continue;
                    }
                    context = runOf(member);
                    items.add(ids(member) + "@" + score(v.getScore(), delayed));
                }
                context = null;
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
                    items.add(ids(text(v)));
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
        TreeMap<String, Integer> perJob = new TreeMap<>();
        int n = 0;
        for (StreamMessage<byte[], byte[]> m : entries) {
            StringBuilder line = new StringBuilder();
            String event = null;
            String jobId = null;
            context = null;
            for (Map.Entry<byte[], byte[]> f : m.getBody().entrySet()) {
                if (text(f.getKey()).equals("jobId")) {
                    context = runOf(text(f.getValue()));
                    jobId = ids(text(f.getValue()));
                }
            }
            for (Map.Entry<byte[], byte[]> f : m.getBody().entrySet()) {
                String field = text(f.getKey());
                String value = ids(text(f.getValue()));
                if (field.equals("event")) {
                    event = value;
                }
                boolean json = field.equals("returnvalue") || field.equals("data");
                line.append(line.length() == 0 ? "" : " ").append(field).append('=')
                        .append(json ? json(value, false) : runTime(value));
            }
            counts.merge(String.valueOf(event), 1, Integer::sum);
            if (!perJobOrder) {
                out.put(String.format("%s #%03d", key, n++), line.toString());
            } else if (jobId != null) {
                int at = perJob.merge(jobId, 1, Integer::sum) - 1;
                out.put(String.format("%s job %s #%03d", key, jobId, at), line.toString());
            }
        }
        context = null;
        counts.forEach((event, count) -> out.put(key + " count " + event, String.valueOf(count)));
    }

    private String hashField(String key, String field, String value, Map<String, String> fields) {
        if (key.endsWith(":meta")) {
            return field.equals("version") ? value.replaceFirst("^[^:]+:.*$", "<library>") : value;
        }
        String scheduler = schedulerOfHash(key);
        if (scheduler != null && field.equals("offset") && fields.containsKey("every")) {
            try {
                return schedulerOffset(scheduler, Long.parseLong(value), Long.parseLong(fields.get("every")));
            } catch (NumberFormatException e) {
                return value;
            }
        }
        if (context != null && field.equals("delay")) {
            return delay(value, fields.get("timestamp"));
        }
        return switch (field) {
            case "data", "returnvalue", "progress" -> json(value, false);
            case "opts" -> context != null ? runOpts(value, fields.get("timestamp")) : json(value, true);
            case "stacktrace" -> "stack traces: " + stackCount(value);
            default -> time(ids(value));
        };
    }

    /** The scheduler id of a definition hash {@code bull:<queue>:repeat:<id>} whose runs are known, or null. */
    private String schedulerOf(String key) {
        int queueEnd = key.indexOf(':', key.indexOf(':') + 1);
        String rest = queueEnd > 0 ? key.substring(queueEnd + 1) : "";
        if (rest.startsWith("repeat:")) {
            String id = rest.substring("repeat:".length());
            return runs.containsKey(id) ? id : null;
        }
        return null;
    }

    private String schedulerOfHash(String key) {
        return context == null ? schedulerOf(key) : null;
    }

    /** A run's delay: its due time minus its timestamp when it is that, else literal. */
    private String delay(String value, String timestamp) {
        try {
            long d = Long.parseLong(value);
            if (timestamp != null && d > 0 && d == context.millis() - Long.parseLong(timestamp)) {
                return "<due-timestamp>";
            }
        } catch (NumberFormatException e) {
            // not a number: literal
        }
        return value;
    }

    /**
     * A scheduler run's opts: compared as JSON (keys sorted) with its own time, delay, timestamp, offset and id
     * written as the rest of the snapshot writes them.
     */
    private String runOpts(String text, String timestamp) {
        try {
            JsonNode n = EXACT.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(text));
            if (!(n instanceof com.fasterxml.jackson.databind.node.ObjectNode o)) {
                return json(text, true);
            }
            com.fasterxml.jackson.databind.node.ObjectNode copy = o.deepCopy();
            if (copy.has("jobId")) {
                copy.put("jobId", ids(copy.get("jobId").asText()));
            }
            if (copy.has("delay")) {
                copy.put("delay", delay(copy.get("delay").asText(), timestamp));
            }
            if (copy.has("timestamp")) {
                copy.put("timestamp", time(copy.get("timestamp").asText()));
            }
            if (copy.has("prevMillis")) {
                copy.put("prevMillis", runTime(copy.get("prevMillis").asText()));
            }
            if (copy.get("repeat") instanceof com.fasterxml.jackson.databind.node.ObjectNode r && r.has("offset")
                    && r.has("every") && labelled(context)) {
                r.put("offset", schedulerOffset(context.scheduler(), r.get("offset").asLong(),
                        r.get("every").asLong()));
            }
            StringBuilder sb = new StringBuilder();
            write(copy, true, sb);
            return sb.toString();
        } catch (JsonProcessingException e) {
            return "not JSON: " + text;
        }
    }

    private static String stackCount(String value) {
        try {
            JsonNode n = EXACT.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(value));
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

    /** As {@link #time}, but a value equal to the current scheduler run's time shows that run's label. */
    private String runTime(String value) {
        try {
            if (context != null && labelled(context) && Double.parseDouble(value) == context.millis()) {
                return label(context.scheduler(), context.millis());
            }
        } catch (NumberFormatException e) {
            // not a number
        }
        return time(value);
    }

    private boolean isTime(double millis) {
        return millis >= windowStart && millis <= windowEnd;
    }

    private String score(double score, boolean delayed) {
        if (delayed && isTime(Math.floor(score / DELAY_SHIFT))) {
            long time = (long) Math.floor(score / DELAY_SHIFT);
            String t = context != null && labelled(context) && time == context.millis()
                    ? label(context.scheduler(), time) : "<t>";
            return t + "*4096+" + (long) (score - (double) time * DELAY_SHIFT);
        }
        if (isTime(score)) {
            return "<t>";
        }
        return BigDecimal.valueOf(score).stripTrailingZeros().toPlainString();
    }

    /** A JSON text as its value: numbers exact and spelled alike, strings escaped where not printable. */
    private static String json(String text, boolean sortKeys) {
        try {
            JsonNode n = EXACT.readTree(io.bull4j.internal.codec.Utf16.rawSurrogateEscapes(text));
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
