package io.bull4j;

import io.bull4j.internal.cron.CronPattern;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * When a job scheduler runs ({@link Queue#upsertJobScheduler}): exactly one of {@link Builder#every(Duration)} or
 * {@link Builder#cron(String)}, optionally bounded by a start date, an end date and a number of runs. Immutable;
 * validated by {@link Builder#build()}.
 *
 * <pre>{@code
 * RepeatOptions hourly = RepeatOptions.builder().cron("0 * * * *").tz(ZoneId.of("Europe/Berlin")).build();
 * RepeatOptions often = RepeatOptions.builder().every(Duration.ofSeconds(30)).limit(100).build();
 * }</pre>
 *
 * <p>Cron patterns are read as BullMQ reads them (its cron-parser): 5 fields, or 6 with seconds first; ranges,
 * steps, lists, month and day names, {@code L} (last day of month), {@code 5L} (last Friday), {@code 1#2}
 * (second Monday), {@code @daily}-style shorthands. Day-of-month and day-of-week match with OR when both are
 * given. {@code W} and {@code H} are refused.
 */
public final class RepeatOptions {
    private final Duration every;
    private final String cron;
    private final ZoneId tz;
    private final Instant startDate;
    private final Instant endDate;
    private final Integer limit;
    private final boolean immediately;
    private final Duration offset;

    private RepeatOptions(Builder b) {
        this.every = b.every;
        this.cron = b.cron;
        this.tz = b.tz;
        this.startDate = b.startDate;
        this.endDate = b.endDate;
        this.limit = b.limit;
        this.immediately = b.immediately;
        this.offset = b.offset;
    }

    /** {@return a builder with nothing set} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the interval of an every scheduler, or null for a cron scheduler} */
    public Duration every() { return every; }
    /** {@return the cron pattern, or null for an every scheduler} */
    public String cron() { return cron; }
    /**
     * {@return the time zone of the cron pattern; null means the JVM's default zone (BullMQ uses the Node
     * process's)}
     */
    public ZoneId tz() { return tz; }
    /** {@return the instant before which nothing runs, or null} */
    public Instant startDate() { return startDate; }
    /** {@return the instant after which nothing runs, or null} */
    public Instant endDate() { return endDate; }
    /** {@return the most runs, or null for no limit} */
    public Integer limit() { return limit; }
    /** {@return whether a cron scheduler's first run is now instead of the pattern's next time} */
    public boolean immediately() { return immediately; }
    /**
     * {@return how long after each multiple of {@code every} (epoch-aligned) an every scheduler's runs fall, or
     * null}
     */
    public Duration offset() { return offset; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RepeatOptions)) {
            return false;
        }
        RepeatOptions r = (RepeatOptions) o;
        return Objects.equals(every, r.every) && Objects.equals(cron, r.cron) && Objects.equals(tz, r.tz)
                && Objects.equals(startDate, r.startDate) && Objects.equals(endDate, r.endDate)
                && Objects.equals(limit, r.limit) && immediately == r.immediately && Objects.equals(offset, r.offset);
    }

    @Override
    public int hashCode() {
        return Objects.hash(every, cron, tz, startDate, endDate, limit, immediately, offset);
    }

    @Override
    public String toString() {
        return "RepeatOptions{" + (every != null ? "every=" + every : "cron='" + cron + "'")
                + (tz != null ? ", tz=" + tz : "") + (startDate != null ? ", startDate=" + startDate : "")
                + (endDate != null ? ", endDate=" + endDate : "") + (limit != null ? ", limit=" + limit : "")
                + (immediately ? ", immediately" : "") + (offset != null ? ", offset=" + offset : "") + "}";
    }

    /** Builds {@link RepeatOptions}; setters check their value, {@link #build()} the combination. */
    public static final class Builder {
        private Duration every;
        private String cron;
        private ZoneId tz;
        private Instant startDate;
        private Instant endDate;
        private Integer limit;
        private boolean immediately;
        private Duration offset;

        private Builder() {
        }

        /**
         * Runs every {@code interval} (whole milliseconds, at least 1 ms). BullMQ's {@code every}.
         *
         * @param interval the time between runs
         * @return this builder
         */
        public Builder every(Duration interval) {
            ValidationException.checkDuration(interval, "every");
            ValidationException.check(interval != null && !interval.isNegative() && !interval.isZero(), "every",
                    "must be a positive duration, was " + interval);
            ValidationException.check(interval.getNano() % 1_000_000 == 0, "every",
                    "must be whole milliseconds, was " + interval);
            this.every = interval;
            return this;
        }

        /**
         * Runs on a cron pattern (BullMQ's {@code pattern}); refused at once when cron-parser would refuse it.
         *
         * @param pattern 5 fields, or 6 with seconds first; see the class comment
         * @return this builder
         */
        public Builder cron(String pattern) {
            ValidationException.check(pattern != null && !pattern.isBlank(), "cron", "must not be empty");
            try {
                CronPattern.parse(pattern);
            } catch (IllegalArgumentException e) {
                throw new ValidationException("cron", "'" + pattern + "' is not a valid pattern: " + e.getMessage());
            }
            this.cron = pattern;
            return this;
        }

        /**
         * The zone the cron pattern's times are read in. Default: the JVM's zone.
         *
         * @param zone a zone such as {@code ZoneId.of("Europe/Berlin")}
         * @return this builder
         */
        public Builder tz(ZoneId zone) {
            ValidationException.check(zone != null, "tz", "must not be null");
            this.tz = zone;
            return this;
        }

        /**
         * No run before this instant. Default: none.
         *
         * @param start the first instant a run may fall on
         * @return this builder
         */
        public Builder startDate(Instant start) {
            ValidationException.check(start != null, "startDate", "must not be null");
            this.startDate = start;
            return this;
        }

        /**
         * No run after this instant; must be in the future when the scheduler is upserted. Default: none.
         *
         * @param end the last instant a run may fall on
         * @return this builder
         */
        public Builder endDate(Instant end) {
            ValidationException.check(end != null, "endDate", "must not be null");
            this.endDate = end;
            return this;
        }

        /**
         * At most this many runs in all. Default: no limit.
         *
         * @param runs a positive count
         * @return this builder
         */
        public Builder limit(int runs) {
            ValidationException.check(runs > 0, "limit", "must be positive, was " + runs);
            this.limit = runs;
            return this;
        }

        /**
         * A cron scheduler's first run is now, then the pattern's times. Default: false.
         *
         * @param now whether to run at once
         * @return this builder
         */
        public Builder immediately(boolean now) {
            this.immediately = now;
            return this;
        }

        /**
         * For an every scheduler: runs at {@code k * every + offset} (0 &lt;= offset &lt; every). Default: none
         * (the first run's own distance from its slot is kept).
         *
         * @param offset whole milliseconds
         * @return this builder
         */
        public Builder offset(Duration offset) {
            ValidationException.checkDuration(offset, "offset");
            ValidationException.check(offset != null && !offset.isNegative(), "offset",
                    "must be zero or positive, was " + offset);
            ValidationException.check(offset.getNano() % 1_000_000 == 0, "offset",
                    "must be whole milliseconds, was " + offset);
            this.offset = offset;
            return this;
        }

        /**
         * {@return the options}
         *
         * @throws ValidationException for both or neither of every and cron, immediately with a start date,
         *     offset or tz with the wrong kind of scheduler, an end date not after the start date
         */
        public RepeatOptions build() {
            ValidationException.check(!(every != null && cron != null), "every",
                    "Both .pattern and .every options are defined for this repeatable job: give every or cron, "
                            + "not both");
            ValidationException.check(every != null || cron != null, "every",
                    "Either .pattern or .every options must be defined for this repeatable job: give every or cron");
            ValidationException.check(!(immediately && startDate != null), "immediately",
                    "Both .immediately and .startDate options are defined for this repeatable job");
            ValidationException.check(offset == null || every != null, "offset", "only applies to every");
            ValidationException.check(offset == null || offset.compareTo(every) < 0, "offset",
                    "must be shorter than every (" + every + "), was " + offset);
            ValidationException.check(tz == null || cron != null, "tz", "only applies to cron");
            ValidationException.check(startDate == null || endDate == null || startDate.isBefore(endDate),
                    "endDate", "must be after startDate");
            return new RepeatOptions(this);
        }
    }
}
