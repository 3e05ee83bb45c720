package io.bull4j.bench;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a MONITOR pass counted over {@code jobs} jobs: commands sent by clients and commands run inside Lua. */
record Calibration(Map<String, Long> client, Map<String, Long> lua, long jobs) {

    static Calibration of(Monitor m, long jobs) {
        return new Calibration(Map.copyOf(m.client), Map.copyOf(m.lua), jobs);
    }

    double clientPerJob() {
        return Stats.r3(total(client) / (double) jobs);
    }

    double luaPerJob() {
        return Stats.r3(total(lua) / (double) jobs);
    }

    /** Per job and command, most frequent first, as the Node side reports them. */
    Map<String, Double> perJob(Map<String, Long> counts) {
        Map<String, Double> out = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .forEach(e -> out.put(e.getKey(), Stats.r3(e.getValue() / (double) jobs)));
        return out;
    }

    private static long total(Map<String, Long> m) {
        return m.values().stream().mapToLong(Long::longValue).sum();
    }
}
