package io.bull4j.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Writes one {@code bullmq-bench/1} line per (mode, variant): on stdout and appended to {@code --out}. The
 * envelope is the Node side's, field for field, with {@code impl: "java-bull4j"}; numbers are written as Node's
 * JSON.stringify would (whole numbers without ".0", NaN as null).
 */
final class Emitter {
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");
    private final ObjectMapper mapper = new ObjectMapper();
    private final Map<String, Object> envelope;
    private final String out;

    Emitter(Map<String, Object> envelope, String out) {
        this.envelope = envelope;
        this.out = out;
    }

    void emit(String mode, String variant, Map<String, Object> params, List<Run> runs, Map<String, Object> extra) {
        Map<String, Object> line = new LinkedHashMap<>(envelope);
        line.put("date", ZonedDateTime.now(ZoneOffset.UTC).format(ISO));
        line.put("mode", mode);
        line.put("variant", variant);
        line.put("params", params);
        line.put("runs", runs.size());
        Map<String, Map<String, Double>> summary = Stats.summarize(runs);
        line.put("summary", summary);
        List<Map<String, Double>> perRun = new ArrayList<>();
        runs.forEach(r -> perRun.add(r.values));
        line.put("per_run", perRun);
        line.putAll(extra);
        String json;
        try {
            json = mapper.writeValueAsString(normalize(line));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write result line", e);
        }
        System.out.println(json);
        System.out.flush();
        if (out != null) {
            try {
                Files.writeString(Path.of(out), json + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new IllegalStateException("cannot append to " + out, e);
            }
        }
        StringJoiner key = new StringJoiner(" ");
        summary.entrySet().stream()
                .filter(e -> e.getKey().matches(".*(jobs_per_s|_p50_ms|_p99_ms|us_per_job|bytes_per_job|_per_s)$"))
                .limit(12).forEach(e -> key.add(e.getKey() + "=" + fmt(e.getValue().get("median"))));
        Log.log("RESULT " + mode + "/" + variant + ": " + key);
    }

    /** Doubles that are whole become longs, non-finite ones null, recursively. */
    static Object normalize(Object v) {
        if (v instanceof Double d) {
            if (!Double.isFinite(d)) {
                return null;
            }
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? (Object) d.longValue() : d;
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> o = new LinkedHashMap<>();
            m.forEach((k, x) -> o.put(k, normalize(x)));
            return o;
        }
        if (v instanceof List<?> l) {
            List<Object> o = new ArrayList<>();
            l.forEach(x -> o.add(normalize(x)));
            return o;
        }
        return v;
    }

    static String fmt(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
