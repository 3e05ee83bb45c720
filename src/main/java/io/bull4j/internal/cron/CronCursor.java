package io.bull4j.internal.cron;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;

/**
 * Walks a {@link CronPattern}'s occurrences forward in a time zone, giving the times cron-parser 5.10 gives,
 * DST changes included: the search narrows month, day, hour, minute, second in turn, stepping wall-clock units the
 * way Luxon does (day and month steps are calendar steps, hour/minute/second steps are elapsed time). Around a
 * spring-forward gap a time scheduled inside the skipped hour fires in the hour the clock lands on; in a fall-back
 * overlap an hour reached by stepping one hour is not repeated. A cursor keeps that DST state between calls, like
 * cron-parser's iterator, so successive {@link #next()} calls give cron-parser's successive next() values.
 */
public final class CronCursor {
    private static final int LOOP_LIMIT = 10_000;

    private enum Unit { MONTH, DAY, HOUR, MINUTE, SECOND }

    private final CronPattern pattern;
    private final ZoneId zone;
    private final Long endMillis;
    private ZonedDateTime current;
    private int dstStart = -1;
    private int dstLandingHour = -1;
    private int dstEnd = -1;

    /** A cursor at {@code fromMillis}; {@code endMillis} (nullable) is the last allowed time. */
    public CronCursor(CronPattern pattern, ZoneId zone, long fromMillis, Long endMillis) {
        this.pattern = pattern;
        this.zone = zone;
        this.endMillis = endMillis;
        long start = endMillis != null && fromMillis > endMillis ? endMillis : fromMillis;
        this.current = Instant.ofEpochMilli(start).atZone(zone);
    }

    /** The first occurrence strictly after {@code fromMillis}, or null when there is none before {@code endMillis}. */
    public static Long nextAfter(CronPattern pattern, ZoneId zone, long fromMillis, Long endMillis) {
        return new CronCursor(pattern, zone, fromMillis, endMillis).next();
    }

    /** The next occurrence in epoch ms, or null past the end date. Throws when the pattern never matches. */
    public Long next() {
        ZonedDateTime d = current;
        long startMillis = d.toInstant().toEpochMilli();
        if (d.getNano() != 0) {
            d = setLocal(d, d.toLocalDateTime().withNano(0));
            d = step(d, Unit.SECOND);
        }
        int steps = 0;
        while (++steps < LOOP_LIMIT) {
            if (endMillis != null && d.toInstant().toEpochMilli() > endMillis) {
                return null;
            }
            if (!pattern.month.contains(d.getMonthValue())) {
                d = step(d, Unit.MONTH);
                continue;
            }
            if (!matchesDay(d)) {
                d = step(d, Unit.DAY);
                continue;
            }
            ZonedDateTime[] holder = {d};
            boolean hourOk = matchHour(holder);
            d = holder[0];
            if (!hourOk) {
                continue;
            }
            if (!pattern.minute.contains(d.getMinute())) {
                int m = pattern.minute.nextAbove(d.getMinute());
                if (m >= 0) {
                    d = setLocal(d, d.toLocalDateTime().withMinute(m));
                } else {
                    d = step(d, Unit.HOUR);
                    d = setLocal(d, d.toLocalDateTime().withMinute(pattern.minute.first()));
                }
                d = setLocal(d, d.toLocalDateTime().withSecond(pattern.second.first()));
                continue;
            }
            if (!pattern.second.contains(d.getSecond())) {
                int s = pattern.second.nextAbove(d.getSecond());
                if (s >= 0) {
                    d = setLocal(d, d.toLocalDateTime().withSecond(s));
                } else {
                    d = step(d, Unit.MINUTE);
                    d = setLocal(d, d.toLocalDateTime().withSecond(pattern.second.first()));
                }
                continue;
            }
            if (d.toInstant().toEpochMilli() == startMillis) {
                d = step(d, Unit.SECOND);
                continue;
            }
            break;
        }
        if (steps >= LOOP_LIMIT) {
            throw new IllegalArgumentException("Invalid expression, loop limit exceeded: " + pattern);
        }
        current = d;
        return d.toInstant().toEpochMilli();
    }

    private boolean matchesDay(ZonedDateTime d) {
        int day = d.getDayOfMonth();
        int weekday = d.getDayOfWeek().getValue() % 7;
        int lastDay = lastDayOfMonth(d.toLocalDate());
        CronPattern.Field dom = pattern.dayOfMonth;
        CronPattern.Field dow = pattern.dayOfWeek;
        boolean domMatch = dom.contains(day) || (dom.hasLast && day == lastDay);
        boolean nthOk = pattern.nthDayOfWeek <= 0 || (day + 6) / 7 == pattern.nthDayOfWeek;
        boolean dowMatch = (dow.contains(weekday) && nthOk) || (dow.hasLast && lastWeekMatch(day, lastDay, weekday));
        if (!dom.wildcard && !dow.wildcard) {
            return domMatch || dowMatch;
        }
        if (dow.wildcard) {
            return domMatch;
        }
        return dowMatch;
    }

    /** "nL": the day is in the month's last seven days and its weekday is the first digit of any value. */
    private boolean lastWeekMatch(int day, int lastDay, int weekday) {
        if (day <= lastDay - 7) {
            return false;
        }
        for (int v : pattern.dayOfWeek.values) {
            if (Character.getNumericValue(Integer.toString(v).charAt(0)) % 7 == weekday) {
                return true;
            }
        }
        for (String t : pattern.dayOfWeek.lastTokens) {
            char c = t.charAt(0);
            if (Character.isDigit(c) && (c - '0') % 7 == weekday) {
                return true;
            }
        }
        return false;
    }

    private static int lastDayOfMonth(LocalDate date) {
        int m = date.getMonthValue();
        if (m == 2) {
            return date.isLeapYear() ? 29 : 28;
        }
        return CronPattern.DAYS_IN_MONTH[m - 1];
    }

    private boolean matchHour(ZonedDateTime[] holder) {
        ZonedDateTime d = holder[0];
        int hour = d.getHour();
        CronPattern.Field hours = pattern.hour;
        if (dstStart >= 0 && dstLandingHour == hour) {
            for (int skipped = dstStart; skipped != hour; skipped = (skipped + 1) % 24) {
                if (hours.contains(skipped)) {
                    return true;
                }
            }
        }
        if (dstEnd == hour) {
            dstEnd = -1;
            holder[0] = step(d, Unit.HOUR);
            return false;
        }
        if (hours.contains(hour)) {
            return true;
        }
        dstStart = -1;
        dstLandingHour = -1;
        int nextHour = hours.nextAbove(hour);
        if (nextHour < 0) {
            holder[0] = step(d, Unit.DAY);
            return false;
        }
        if (isTransitionDay(d)) {
            int n = nextHour - hour;
            for (int i = 0; i < n; i++) {
                d = step(d, Unit.HOUR);
                if (d.getHour() >= nextHour) {
                    break;
                }
            }
        } else {
            d = setLocal(d, d.toLocalDateTime().withHour(nextHour));
        }
        d = setLocal(d, d.toLocalDateTime().withMinute(pattern.minute.first()));
        d = setLocal(d, d.toLocalDateTime().withSecond(pattern.second.first()));
        holder[0] = d;
        return false;
    }

    /** Whether the UTC offset at the day's first moment differs from the one at its last. */
    private boolean isTransitionDay(ZonedDateTime d) {
        ZonedDateTime startOfDay = setLocal(d, d.toLocalDate().atStartOfDay());
        ZonedDateTime endOfDay = setLocal(d, d.toLocalDate().atTime(23, 59, 59, 999_000_000));
        return !startOfDay.getOffset().equals(endOfDay.getOffset());
    }

    /** One forward step of a unit, noting a DST gap or overlap crossed by an hour/minute/second step. */
    private ZonedDateTime step(ZonedDateTime d, Unit unit) {
        switch (unit) {
            case MONTH: {
                ZonedDateTime plus = setLocal(d, d.toLocalDateTime().plusMonths(1));
                return setLocal(plus, plus.toLocalDate().withDayOfMonth(1).atStartOfDay());
            }
            case DAY: {
                ZonedDateTime plus = setLocal(d, d.toLocalDateTime().plusDays(1));
                return setLocal(plus, plus.toLocalDate().atStartOfDay());
            }
            default:
                break;
        }
        int prevHour = d.getHour();
        ZoneOffset prevOffset = d.getOffset();
        ZonedDateTime next;
        if (unit == Unit.HOUR) {
            ZonedDateTime plus = d.plusHours(1);
            next = setLocal(plus, plus.toLocalDateTime().truncatedTo(ChronoUnit.HOURS));
        } else if (unit == Unit.MINUTE) {
            ZonedDateTime plus = d.plusMinutes(1);
            next = setLocal(plus, plus.toLocalDateTime().truncatedTo(ChronoUnit.MINUTES));
        } else {
            next = d.plusSeconds(1);
        }
        int advance = (next.getHour() - prevHour + 24) % 24;
        boolean allHours = pattern.hour.values.length == 24;
        if (next.getOffset().getTotalSeconds() > prevOffset.getTotalSeconds() && advance >= 2) {
            if (!allHours) {
                dstStart = (prevHour + 1) % 24;
                dstLandingHour = next.getHour();
            }
        } else if (advance == 0 && next.getMinute() == 0 && next.getSecond() == 0) {
            if (!allHours) {
                dstEnd = next.getHour();
            }
        }
        return next;
    }

    /** A wall-clock time resolved in the zone, keeping the current offset when the time is ambiguous. */
    private ZonedDateTime setLocal(ZonedDateTime like, LocalDateTime local) {
        return ZonedDateTime.ofLocal(local, zone, like.getOffset());
    }
}
