package io.bull4j;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Options of one job, as BullMQ's {@code JobsOptions}. Immutable; build with {@link #builder()}, every setter
 * validates and names the field it rejects. Unset options fall back to the queue's defaults.
 *
 * <pre>{@code
 * JobOptions.builder().jobId("reminder-42").delay(Duration.ofMinutes(15)).priority(2)
 *     .attempts(5).backoff(Backoff.exponential(Duration.ofSeconds(2)))
 *     .removeOnComplete(KeepJobs.count(1000)).build();
 * }</pre>
 */
public final class JobOptions {
    /** The highest priority value BullMQ accepts (2^21 - 1); 0 means none and runs before any prioritized job. */
    public static final int MAX_PRIORITY = 2_097_151;
    public static final JobOptions DEFAULTS = builder().build();

    private final String jobId;
    private final Duration delay;
    private final Integer priority;
    private final Boolean lifo;
    private final Integer attempts;
    private final Backoff backoff;
    private final KeepJobs removeOnComplete;
    private final KeepJobs removeOnFail;
    private final Instant timestamp;
    private final Integer stackTraceLimit;
    private final Integer keepLogs;
    private final Integer sizeLimit;
    private final Deduplication deduplication;

    private JobOptions(Builder b) {
        jobId = b.jobId;
        delay = b.delay;
        priority = b.priority;
        lifo = b.lifo;
        attempts = b.attempts;
        backoff = b.backoff;
        removeOnComplete = b.removeOnComplete;
        removeOnFail = b.removeOnFail;
        timestamp = b.timestamp;
        stackTraceLimit = b.stackTraceLimit;
        keepLogs = b.keepLogs;
        sizeLimit = b.sizeLimit;
        deduplication = b.deduplication;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.jobId = jobId;
        b.delay = delay;
        b.priority = priority;
        b.lifo = lifo;
        b.attempts = attempts;
        b.backoff = backoff;
        b.removeOnComplete = removeOnComplete;
        b.removeOnFail = removeOnFail;
        b.timestamp = timestamp;
        b.stackTraceLimit = stackTraceLimit;
        b.keepLogs = keepLogs;
        b.sizeLimit = sizeLimit;
        b.deduplication = deduplication;
        return b;
    }

    /** These options, with unset ones taken from {@code defaults}. */
    public JobOptions withDefaults(JobOptions defaults) {
        Builder b = toBuilder();
        if (b.jobId == null) b.jobId = defaults.jobId;
        if (b.delay == null) b.delay = defaults.delay;
        if (b.priority == null) b.priority = defaults.priority;
        if (b.lifo == null) b.lifo = defaults.lifo;
        if (b.attempts == null) b.attempts = defaults.attempts;
        if (b.backoff == null) b.backoff = defaults.backoff;
        if (b.removeOnComplete == null) b.removeOnComplete = defaults.removeOnComplete;
        if (b.removeOnFail == null) b.removeOnFail = defaults.removeOnFail;
        if (b.timestamp == null) b.timestamp = defaults.timestamp;
        if (b.stackTraceLimit == null) b.stackTraceLimit = defaults.stackTraceLimit;
        if (b.keepLogs == null) b.keepLogs = defaults.keepLogs;
        if (b.sizeLimit == null) b.sizeLimit = defaults.sizeLimit;
        if (b.deduplication == null) b.deduplication = defaults.deduplication;
        return b.build();
    }

    /** The custom id, or null for an id from the queue's counter. */
    public String jobId() { return jobId; }
    public Duration delay() { return delay == null ? Duration.ZERO : delay; }
    public int priority() { return priority == null ? 0 : priority; }
    public boolean lifo() { return lifo != null && lifo; }
    /** Whether delay was set (even to zero): set options are stored in the job's options, as BullMQ does. */
    public boolean hasDelay() { return delay != null; }
    /** Whether priority was set (even to 0). */
    public boolean hasPriority() { return priority != null; }
    /** Whether lifo was set (even to false). */
    public boolean hasLifo() { return lifo != null; }
    /** Attempts in all, as stored; 0 (the default) and 1 both mean a single try. */
    public int attempts() { return attempts == null ? 0 : attempts; }
    /** null when failures are not retried with a wait. */
    public Backoff backoff() { return backoff; }
    /** null when unset (the worker's default applies, else all are kept). */
    public KeepJobs removeOnComplete() { return removeOnComplete; }
    public KeepJobs removeOnFail() { return removeOnFail; }
    /** null when unset (now, at add). */
    public Instant timestamp() { return timestamp; }
    /** null when unset (no limit). */
    public Integer stackTraceLimit() { return stackTraceLimit; }
    public Integer keepLogs() { return keepLogs; }
    public Integer sizeLimit() { return sizeLimit; }
    /** null when the job is not deduplicated. */
    public Deduplication deduplication() { return deduplication; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JobOptions)) return false;
        JobOptions x = (JobOptions) o;
        return Objects.equals(jobId, x.jobId) && Objects.equals(delay, x.delay) && Objects.equals(priority, x.priority)
                && Objects.equals(lifo, x.lifo) && Objects.equals(attempts, x.attempts)
                && Objects.equals(backoff, x.backoff) && Objects.equals(removeOnComplete, x.removeOnComplete)
                && Objects.equals(removeOnFail, x.removeOnFail) && Objects.equals(timestamp, x.timestamp)
                && Objects.equals(stackTraceLimit, x.stackTraceLimit) && Objects.equals(keepLogs, x.keepLogs)
                && Objects.equals(sizeLimit, x.sizeLimit) && Objects.equals(deduplication, x.deduplication);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jobId, delay, priority, lifo, attempts, backoff, removeOnComplete, removeOnFail, timestamp,
                stackTraceLimit, keepLogs, sizeLimit, deduplication);
    }

    @Override
    public String toString() {
        return "JobOptions{jobId=" + jobId + ", delay=" + delay + ", priority=" + priority + ", lifo=" + lifo
                + ", attempts=" + attempts + ", backoff=" + backoff + ", removeOnComplete=" + removeOnComplete
                + ", removeOnFail=" + removeOnFail + ", timestamp=" + timestamp + ", stackTraceLimit="
                + stackTraceLimit + ", keepLogs=" + keepLogs + ", sizeLimit=" + sizeLimit
                + (deduplication != null ? ", deduplication=" + deduplication : "") + "}";
    }

    /** Validates each value as it is set; {@link #build()} checks combinations. Not thread-safe. */
    public static final class Builder {
        private String jobId;
        private Duration delay;
        private Integer priority;
        private Boolean lifo;
        private Integer attempts;
        private Backoff backoff;
        private KeepJobs removeOnComplete;
        private KeepJobs removeOnFail;
        private Instant timestamp;
        private Integer stackTraceLimit;
        private Integer keepLogs;
        private Integer sizeLimit;
        private Deduplication deduplication;

        private Builder() {
        }

        /** A custom id: adding a job whose id exists returns the existing job and adds nothing. */
        public Builder jobId(String jobId) {
            if (jobId != null && !jobId.isEmpty()) {
                checkJobId(jobId);
            }
            this.jobId = jobId == null || jobId.isEmpty() ? null : jobId;
            return this;
        }

        /** Internal: an id as another producer stored it, already accepted there. */
        public Builder jobIdUnchecked(String jobId) {
            this.jobId = jobId == null || jobId.isEmpty() ? null : jobId;
            return this;
        }

        /** Set options are stored in the job's options even at their default (as BullMQ stores what it is given). */
        public Builder delay(Duration delay) {
            ValidationException.check(delay != null && !delay.isNegative(), "delay",
                    "must be zero or positive (was " + delay + ")");
            this.delay = delay;
            return this;
        }

        public Builder priority(int priority) {
            ValidationException.check(priority >= 0 && priority <= MAX_PRIORITY, "priority",
                    "must be between 0 and " + MAX_PRIORITY + " (was " + priority + ")");
            this.priority = priority;
            return this;
        }

        public Builder lifo(boolean lifo) {
            this.lifo = lifo;
            return this;
        }

        public Builder attempts(int attempts) {
            ValidationException.check(attempts >= 0, "attempts", "must be >= 0 (was " + attempts + ")");
            this.attempts = attempts;
            return this;
        }

        public Builder backoff(Backoff backoff) {
            this.backoff = backoff;
            return this;
        }

        public Builder removeOnComplete(KeepJobs keep) {
            this.removeOnComplete = keep;
            return this;
        }

        /** {@code true} removes the job as soon as it completes; {@code false} keeps it. */
        public Builder removeOnComplete(boolean remove) {
            return removeOnComplete(remove ? KeepJobs.none() : KeepJobs.all());
        }

        public Builder removeOnFail(KeepJobs keep) {
            this.removeOnFail = keep;
            return this;
        }

        public Builder removeOnFail(boolean remove) {
            return removeOnFail(remove ? KeepJobs.none() : KeepJobs.all());
        }

        public Builder timestamp(Instant timestamp) {
            ValidationException.check(timestamp != null && timestamp.toEpochMilli() >= 0, "timestamp",
                    "must be a non-negative epoch time (was " + timestamp + ")");
            this.timestamp = timestamp;
            return this;
        }

        public Builder stackTraceLimit(int limit) {
            ValidationException.check(limit >= 0, "stackTraceLimit", "must be >= 0 (was " + limit + ")");
            this.stackTraceLimit = limit;
            return this;
        }

        /** The newest log lines to keep; 0 keeps all (as BullMQ, which treats 0 as "no limit"). */
        public Builder keepLogs(int count) {
            ValidationException.check(count >= 0, "keepLogs", "must be >= 0 (was " + count + ")");
            this.keepLogs = count;
            return this;
        }

        /** The largest JSON payload in bytes (UTF-8) that add accepts. */
        public Builder sizeLimit(int bytes) {
            ValidationException.check(bytes > 0, "sizeLimit", "must be > 0 (was " + bytes + ")");
            this.sizeLimit = bytes;
            return this;
        }

        /** Collapses adds with the same deduplication id; see {@link Deduplication}. null: none. */
        public Builder deduplication(Deduplication deduplication) {
            this.deduplication = deduplication;
            return this;
        }

        public JobOptions build() {
            return new JobOptions(this);
        }
    }

    /**
     * BullMQ's rules for custom ids, so that both sides accept the same ids. Beyond them, "0:" (a legacy delay
     * marker that scripts skip in the wait list) is refused.
     */
    static void checkJobId(String id) {
        ValidationException.check(!isOwnParseInt(id), "jobId",
                "custom ids cannot be integers (was \"" + id + "\"); Redis counters own those");
        ValidationException.check(!id.equals("0") && !id.startsWith("0:"), "jobId", "cannot be \"0\" or start with \"0:\"");
        ValidationException.check(id.indexOf(':') < 0 || id.split(":", -1).length == 3, "jobId",
                "cannot contain ':' (was \"" + id + "\")");
    }

    /**
     * BullMQ refuses an id that equals {@code String(parseInt(id, 10))}: a canonical integer that JavaScript
     * prints back unchanged. "007", "-0" and integers a double cannot hold exactly (most 19-digit snowflake ids)
     * are therefore custom ids. JavaScript prints the shortest digits that read back as the same double, padded
     * with zeros, and uses exponent form from 1e21; so does this check. "NaN" is its own parseInt too.
     */
    private static boolean isOwnParseInt(String id) {
        if (id.equals("NaN")) {
            return true;
        }
        if (!id.matches("-?(0|[1-9]\\d*)") || id.equals("-0")) {
            return false;
        }
        String digits = id.startsWith("-") ? id.substring(1) : id;
        if (digits.length() <= 15) {
            return true; // held exactly by a double
        }
        if (digits.length() > 21) {
            return false; // 1e21 and up print in exponent form
        }
        double value = Double.parseDouble(digits);
        BigDecimal exact = new BigDecimal(value);
        // why not Double.toString: before Java 19 it does not always give the shortest digits
        for (int precision = 1; precision <= 17; precision++) {
            BigDecimal shortest = exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
            if (shortest.doubleValue() == value) {
                return shortest.toBigInteger().toString().equals(digits);
            }
        }
        return false;
    }
}
