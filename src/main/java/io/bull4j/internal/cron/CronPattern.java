package io.bull4j.internal.cron;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cron pattern read the way cron-parser 5.10 (what BullMQ 6.7.0 uses) reads it, so that a scheduler's times are
 * the same whichever side computes them: 5 fields (seconds 0) or 6 (seconds first), {@code * ? , - /}, month and
 * day names, {@code L} in day-of-month, {@code nL} and {@code n#k} in day-of-week, Sunday as 0 or 7, the
 * {@code @daily}-style shorthands. Day-of-month and day-of-week combine with OR when both are given (a field is
 * "given" unless it is exactly {@code *} or {@code ?}). {@code W} is refused, as cron-parser refuses it; so is
 * {@code H}, whose random value cron-parser draws anew on every computation.
 */
public final class CronPattern {
    static final int[] DAYS_IN_MONTH = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

    private static final Map<String, String> SHORTHANDS = Map.of(
            "@yearly", "0 0 0 1 1 *", "@annually", "0 0 0 1 1 *", "@monthly", "0 0 0 1 * *",
            "@weekly", "0 0 0 * * 0", "@daily", "0 0 0 * * *", "@hourly", "0 0 * * * *",
            "@minutely", "0 * * * * *", "@secondly", "* * * * * *", "@weekdays", "0 0 0 * * 1-5",
            "@weekends", "0 0 0 * * 0,6");
    private static final List<String> MONTHS = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug",
            "sep", "oct", "nov", "dec");
    private static final List<String> DAYS = List.of("sun", "mon", "tue", "wed", "thu", "fri", "sat");
    private static final Pattern NAME = Pattern.compile("[a-zA-Z]{3}");
    private static final Pattern PLAIN_CHARS = Pattern.compile("[?,*\\d/-]+");
    private static final Pattern DOM_CHARS = Pattern.compile("[?,*\\dL/-]+");
    private static final Pattern DOW_CHARS = Pattern.compile("[?,*\\dL#/-]+");
    private static final Pattern LAST_TOKEN = Pattern.compile("\\d{0,2}L");
    private static final Pattern NTH_INCOMPATIBLE = Pattern.compile("[,\\-/]");

    /** One field: sorted numeric values, plus the "L" tokens (day fields only). */
    static final class Field {
        final int[] values;
        final List<String> lastTokens;
        final boolean wildcard;
        final boolean hasLast;

        Field(int[] values, List<String> lastTokens, boolean wildcard, boolean hasLast) {
            this.values = values;
            this.lastTokens = lastTokens;
            this.wildcard = wildcard;
            this.hasLast = hasLast;
        }

        boolean contains(int v) {
            for (int x : values) {
                if (x == v) {
                    return true;
                }
            }
            return false;
        }

        /** The smallest value above {@code v}, or -1. */
        int nextAbove(int v) {
            for (int x : values) {
                if (x > v) {
                    return x;
                }
            }
            return -1;
        }

        int first() {
            return values[0];
        }
    }

    final String source;
    final Field second;
    final Field minute;
    final Field hour;
    final Field dayOfMonth;
    final Field month;
    final Field dayOfWeek;
    final int nthDayOfWeek;

    private CronPattern(String source, Field second, Field minute, Field hour, Field dayOfMonth, Field month,
                        Field dayOfWeek, int nthDayOfWeek) {
        this.source = source;
        this.second = second;
        this.minute = minute;
        this.hour = hour;
        this.dayOfMonth = dayOfMonth;
        this.month = month;
        this.dayOfWeek = dayOfWeek;
        this.nthDayOfWeek = nthDayOfWeek;
    }

    /** Parses a pattern; throws {@link IllegalArgumentException} with cron-parser's reason when it refuses it. */
    public static CronPattern parse(String pattern) {
        if (pattern == null) {
            throw new IllegalArgumentException("pattern is null");
        }
        String expr = SHORTHANDS.getOrDefault(pattern, pattern);
        if (expr.isEmpty()) {
            expr = "0 * * * * *";
        }
        if (expr.length() > 1024) {
            throw new IllegalArgumentException("Invalid cron expression, too long, expected at most 1024 characters");
        }
        String trimmed = expr.strip();
        List<String> atoms = new ArrayList<>(List.of(trimmed.isEmpty() ? new String[] {""} : trimmed.split("\\s+")));
        if (atoms.size() > 6) {
            throw new IllegalArgumentException("Invalid cron expression, too many fields");
        }
        String[] defaults = {"0", "*", "*", "*", "*", "*"};
        List<String> all = new ArrayList<>(List.of(defaults).subList(0, 6 - atoms.size()));
        all.addAll(atoms);
        String rawDow = all.get(5);
        int nth = 0;
        String dowPart = rawDow;
        String[] hashParts = rawDow.split("#", -1);
        if (hashParts.length > 1) {
            if (NTH_INCOMPATIBLE.matcher(rawDow).find()) {
                throw new IllegalArgumentException("Constraint error, invalid dayOfWeek '#' combined with , - or /");
            }
            Integer n = parseWhole(hashParts[hashParts.length - 1]);
            if (hashParts.length > 2 || n == null || n < 1 || n > 5) {
                throw new IllegalArgumentException("Constraint error, invalid dayOfWeek occurrence number (#)");
            }
            nth = n;
            dowPart = hashParts[0];
        }
        Field second = field("second", all.get(0), 0, 59, PLAIN_CHARS, false);
        Field minute = field("minute", all.get(1), 0, 59, PLAIN_CHARS, false);
        Field hour = field("hour", all.get(2), 0, 23, PLAIN_CHARS, false);
        Field month = field("month", names(all.get(4)), 1, 12, PLAIN_CHARS, false);
        Field dom = field("dayOfMonth", all.get(3), 1, 31, DOM_CHARS, true);
        Field dow = field("dayOfWeek", names(dowPart), 0, 7, DOW_CHARS, true);
        dom = new Field(dom.values, dom.lastTokens, isWildcard(all.get(3)), dom.hasLast);
        dow = new Field(dow.values, dow.lastTokens, isWildcard(rawDow), rawDow.contains("L"));
        if (dow.lastTokens.contains("L")) {
            throw new IllegalArgumentException("dayOfWeek: unexpected standalone L");
        }
        dom = dropImpossibleDays(dom, month);
        if (month.values.length == 1 && !dom.hasLast && dow.wildcard
                && !(dom.values.length > 0 && dom.values[0] <= DAYS_IN_MONTH[month.values[0] - 1])) {
            throw new IllegalArgumentException("Invalid explicit day of month definition");
        }
        return new CronPattern(pattern, second, minute, hour, dom, month, dow, nth);
    }

    private static boolean isWildcard(String raw) {
        return raw.equals("*") || raw.equals("?");
    }

    /** With a single month, days it never has are dropped, unless that leaves none. */
    private static Field dropImpossibleDays(Field dom, Field month) {
        if (month.values.length != 1) {
            return dom;
        }
        int max = DAYS_IN_MONTH[month.values[0] - 1];
        int[] kept = java.util.Arrays.stream(dom.values).filter(v -> v <= max).toArray();
        if (kept.length == 0 && dom.lastTokens.isEmpty()) {
            return dom;
        }
        return new Field(kept, dom.lastTokens, dom.wildcard, dom.hasLast);
    }

    private static String names(String value) {
        Matcher m = NAME.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group().toLowerCase(Locale.ROOT);
            int idx = MONTHS.indexOf(name);
            int number = idx >= 0 ? idx + 1 : DAYS.indexOf(name);
            if (number < 0) {
                throw new IllegalArgumentException("Validation error, cannot resolve alias \"" + name + "\"");
            }
            m.appendReplacement(out, Integer.toString(number));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static Field field(String name, String raw, int min, int max, Pattern validChars, boolean lastAllowed) {
        if (!validChars.matcher(raw).matches()) {
            throw new IllegalArgumentException(name + ": invalid characters in '" + raw + "'");
        }
        String value = raw.replace("*", min + "-" + max).replace("?", min + "-" + max);
        List<Integer> numbers = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        boolean isDow = name.equals("dayOfWeek");
        for (String atom : value.split(",", -1)) {
            if (numbers.size() + tokens.size() > 256) {
                throw new IllegalArgumentException(name + ": too many values");
            }
            if (atom.isEmpty()) {
                throw new IllegalArgumentException("Invalid list value format");
            }
            addAtom(name, atom, min, max, isDow, numbers, tokens);
        }
        for (String t : tokens) {
            if (!lastAllowed || !LAST_TOKEN.matcher(t).matches()) {
                throw new IllegalArgumentException(name + ": got value " + t + " expected range " + min + "-" + max);
            }
        }
        List<Integer> seen = new ArrayList<>();
        for (int n : numbers) {
            if (n < min || n > max) {
                throw new IllegalArgumentException(name + ": got value " + n + " expected range " + min + "-" + max);
            }
            if (seen.contains(n)) {
                throw new IllegalArgumentException(name + ": duplicate values found: " + n);
            }
            seen.add(n);
        }
        if (tokens.size() != tokens.stream().distinct().count()) {
            throw new IllegalArgumentException(name + ": duplicate values found");
        }
        int[] sorted = numbers.stream().mapToInt(Integer::intValue).sorted().toArray();
        List<String> sortedTokens = tokens.stream().sorted().toList();
        return new Field(sorted, sortedTokens, false, raw.contains("L"));
    }

    private static void addAtom(String name, String atom, int min, int max, boolean isDow, List<Integer> numbers,
                                List<String> tokens) {
        String[] stepParts = atom.split("/", -1);
        if (stepParts.length > 2) {
            throw new IllegalArgumentException(name + ": invalid repeat: " + atom);
        }
        String range = atom;
        int step = 1;
        boolean stepped = stepParts.length == 2;
        if (stepped) {
            range = stepParts[0].contains("-") ? stepParts[0] : stepParts[0] + "-" + max;
            Integer s = leadingInt(stepParts[1]);
            step = s == null ? -1 : s;
        }
        String[] ends = range.split("-", -1);
        if (ends.length <= 1) {
            Integer whole = parseWhole(range);
            if (whole == null) {
                if (range.contains("L")) {
                    tokens.add(range);
                    return;
                }
                Integer lead = leadingInt(range);
                if (lead == null || lead < min || lead > max) {
                    throw new IllegalArgumentException(name + ": got value " + range + " expected range " + min
                            + "-" + max);
                }
                numbers.add(isDow ? lead % 7 : lead);
                return;
            }
            if (whole < min || whole > max) {
                throw new IllegalArgumentException(name + ": got value " + range + " expected range " + min + "-"
                        + max);
            }
            numbers.add(isDow ? whole % 7 : whole);
            return;
        }
        Integer lo = leadingInt(ends[0]);
        Integer hi = leadingInt(ends[1]);
        if (lo == null || hi == null || lo < min || hi > max) {
            throw new IllegalArgumentException(name + ": got range " + range + " expected range " + min + "-" + max);
        }
        if (lo > hi) {
            throw new IllegalArgumentException(name + ": invalid range " + range + ", min > max");
        }
        if (step <= 0) {
            throw new IllegalArgumentException(name + ": cannot repeat at every " + stepParts[1] + " time");
        }
        List<Integer> out = new ArrayList<>();
        if (isDow && hi % 7 == 0 && (hi - lo) % step == 0) {
            out.add(0);
        }
        for (int v = lo; v <= hi; v += step) {
            if (!out.contains(v)) {
                out.add(v);
            }
        }
        numbers.addAll(out);
    }

    /** A string that is a whole decimal number (JavaScript's unary plus on digits only), or null. */
    private static Integer parseWhole(String s) {
        if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(Character::isDigit)) {
            return null;
        }
        return Integer.parseInt(s);
    }

    /** The leading digits as parseInt reads them, or null when there are none. */
    private static Integer leadingInt(String s) {
        int end = 0;
        while (end < s.length() && end < 9 && Character.isDigit(s.charAt(end))) {
            end++;
        }
        return end == 0 ? null : Integer.parseInt(s.substring(0, end));
    }

    @Override
    public String toString() {
        return source;
    }
}
