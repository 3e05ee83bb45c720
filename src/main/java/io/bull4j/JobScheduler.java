package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A job scheduler as stored in Redis (by bull4j or BullMQ), as {@link Queue#getJobScheduler(String)} and
 * {@link Queue#getJobSchedulers} read it; BullMQ's {@code JobSchedulerJson}. Absent fields are null.
 */
public final class JobScheduler {
    private final String id;
    private final String name;
    private final Instant next;
    private final Long iterationCount;
    private final Integer limit;
    private final Instant startDate;
    private final Instant endDate;
    private final String tz;
    private final String pattern;
    private final Duration every;
    private final Duration offset;
    private final JsonNode templateData;
    private final JobOptions templateOptions;

    JobScheduler(String id, String name, Instant next, Long iterationCount, Integer limit, Instant startDate,
                 Instant endDate, String tz, String pattern, Duration every, Duration offset, JsonNode templateData,
                 JobOptions templateOptions) {
        this.id = id;
        this.name = name;
        this.next = next;
        this.iterationCount = iterationCount;
        this.limit = limit;
        this.startDate = startDate;
        this.endDate = endDate;
        this.tz = tz;
        this.pattern = pattern;
        this.every = every;
        this.offset = offset;
        this.templateData = templateData;
        this.templateOptions = templateOptions;
    }

    /** {@return the scheduler's id (BullMQ's {@code key})} */
    public String id() { return id; }
    /** {@return the name of the jobs it adds} */
    public String name() { return name; }
    /** {@return when its pending run is due} */
    public Instant next() { return next; }
    /** {@return how many runs it has added so far ({@code ic}), null when not stored} */
    public Long iterationCount() { return iterationCount; }
    /** {@return the most runs it adds, or null for no limit} */
    public Integer limit() { return limit; }
    /** {@return the instant before which it runs nothing, or null} */
    public Instant startDate() { return startDate; }
    /** {@return the instant after which it runs nothing, or null} */
    public Instant endDate() { return endDate; }
    /**
     * {@return the cron pattern's time zone id as stored, or null: the zone of the process that computes the
     * runs}
     */
    public String tz() { return tz; }
    /** {@return the cron pattern, or null for an every scheduler} */
    public String pattern() { return pattern; }
    /** {@return the interval of an every scheduler, or null for a cron scheduler} */
    public Duration every() { return every; }
    /** {@return the offset of its runs from the multiples of {@code every}, or null when none is stored} */
    public Duration offset() { return offset; }
    /** {@return the template's data, or null when the template has none (stored as no {@code data} field)} */
    public JsonNode templateData() { return templateData; }
    /** {@return the template's options, or null when the template has none} */
    public JobOptions templateOptions() { return templateOptions; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JobScheduler)) {
            return false;
        }
        JobScheduler s = (JobScheduler) o;
        return id.equals(s.id) && Objects.equals(name, s.name) && Objects.equals(next, s.next)
                && Objects.equals(iterationCount, s.iterationCount) && Objects.equals(limit, s.limit)
                && Objects.equals(startDate, s.startDate) && Objects.equals(endDate, s.endDate)
                && Objects.equals(tz, s.tz) && Objects.equals(pattern, s.pattern) && Objects.equals(every, s.every)
                && Objects.equals(offset, s.offset) && Objects.equals(templateData, s.templateData)
                && Objects.equals(templateOptions, s.templateOptions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, next, iterationCount, pattern, every);
    }

    @Override
    public String toString() {
        return "JobScheduler{id=" + id + ", name=" + name + ", next=" + next + ", iterationCount=" + iterationCount
                + (pattern != null ? ", pattern='" + pattern + "'" : "") + (every != null ? ", every=" + every : "")
                + (tz != null ? ", tz=" + tz : "") + (limit != null ? ", limit=" + limit : "")
                + (startDate != null ? ", startDate=" + startDate : "")
                + (endDate != null ? ", endDate=" + endDate : "") + (offset != null ? ", offset=" + offset : "")
                + (templateData != null ? ", data=" + templateData : "")
                + (templateOptions != null ? ", options=" + templateOptions : "") + "}";
    }
}
