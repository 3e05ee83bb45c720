package io.bull4j.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The metrics of one measured run, in insertion order (that is the order of the JSON {@code per_run} entry), plus
 * the raw {@code INFO commandstats} of its window, which is not emitted per run but feeds the cost mode.
 */
final class Run {
    final Map<String, Double> values = new LinkedHashMap<>();
    /** Command name to {calls, usec} over the measured window (harness commands left out). */
    Map<String, long[]> cmdstats = Map.of();

    Run put(String key, double value) {
        values.put(key, Stats.r3(value));
        return this;
    }

    Run putAll(Run other) {
        values.putAll(other.values);
        if (!other.cmdstats.isEmpty()) {
            cmdstats = other.cmdstats;
        }
        return this;
    }

    Run putAll(Map<String, Double> other) {
        values.putAll(other);
        return this;
    }

    double get(String key) {
        Double v = values.get(key);
        return v == null ? Double.NaN : v;
    }
}
