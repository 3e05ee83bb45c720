package io.bull4j.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The Node side's statistics, with the same rounding and percentile rule, so that numbers compare exactly. */
final class Stats {
    private Stats() {
    }

    /** Rounds to 3 decimals, as the Node side's r3; non-finite values pass through. */
    static double r3(double x) {
        return Double.isFinite(x) ? Math.round(x * 1000) / 1000.0 : x;
    }

    static double median(List<Double> values) {
        double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = s.length;
        return n % 2 == 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** Nearest-rank percentile of a sorted array: element ceil(p/100 * n) - 1, clamped. */
    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1));
        return sorted[i];
    }

    /** p50/p90/p99/max/min/mean of a sample in ms, keyed {@code <prefix>_p50_ms} and so on. */
    static Map<String, Double> dist(double[] values, String prefix) {
        double[] s = values.clone();
        Arrays.sort(s);
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(prefix + "_p50_ms", r3(pct(s, 50)));
        m.put(prefix + "_p90_ms", r3(pct(s, 90)));
        m.put(prefix + "_p99_ms", r3(pct(s, 99)));
        m.put(prefix + "_max_ms", r3(s.length == 0 ? Double.NaN : s[s.length - 1]));
        m.put(prefix + "_min_ms", r3(s.length == 0 ? Double.NaN : s[0]));
        m.put(prefix + "_mean_ms", r3(Arrays.stream(s).average().orElse(Double.NaN)));
        return m;
    }

    /** Per metric over the runs: {median, min, max, spread_pct}, for the finite values only. */
    static Map<String, Map<String, Double>> summarize(List<Run> runs) {
        Set<String> keys = new LinkedHashSet<>();
        runs.forEach(r -> keys.addAll(r.values.keySet()));
        Map<String, Map<String, Double>> sum = new LinkedHashMap<>();
        for (String k : keys) {
            List<Double> v = new ArrayList<>();
            for (Run r : runs) {
                double x = r.get(k);
                if (Double.isFinite(x)) {
                    v.add(x);
                }
            }
            if (v.isEmpty()) {
                continue;
            }
            double med = median(v);
            double mn = v.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            double mx = v.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
            Map<String, Double> s = new LinkedHashMap<>();
            s.put("median", r3(med));
            s.put("min", r3(mn));
            s.put("max", r3(mx));
            s.put("spread_pct", med != 0 ? r3((mx - mn) / Math.abs(med) * 100) : 0.0);
            sum.put(k, s);
        }
        return sum;
    }
}
