package io.bull4j.internal.redis;

import io.bull4j.Bull4jException;

/** Parses {@code INFO server} and refuses servers older than bull4j supports. */
public final class RedisVersion {
    /** LPOS, fractional BZPOPMIN timeouts and multi-field HSET are needed; 6.2 is BullMQ's recommended floor. */
    public static final String MINIMUM = "6.2.0";

    private RedisVersion() {
    }

    public static String parse(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "0.0.0";
    }

    public static void requireSupported(String version) {
        if (compare(version, MINIMUM) < 0) {
            throw new Bull4jException("Redis " + version + " is not supported: bull4j needs Redis " + MINIMUM
                    + " or newer");
        }
    }

    static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < 3; i++) {
            int d = Integer.compare(part(x, i), part(y, i));
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private static int part(String[] parts, int i) {
        if (i >= parts.length) {
            return 0;
        }
        String digits = parts[i].replaceAll("[^0-9].*$", "");
        return digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }
}
