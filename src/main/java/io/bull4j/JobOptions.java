package io.bull4j;

import io.bull4j.internal.keys.QueueKeys;

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
    /**
     * The latest due time (epoch ms) a delayed job can have, 2^51 - 1 ms (about the year 73,000). A delayed job's
     * score is due * 4096 plus a sequence, which must fit a long; past 2^53 (September 2039) the double score no
     * longer holds the sequence exactly, so jobs due in the same millisecond may swap places, as in BullMQ, while
     * the due time itself stays exact.
     */
    public static final long MAX_DUE_MS = (1L << 51) - 1;
    /** The longest delay accepted at all; the add checks that now + delay stays within {@link #MAX_DUE_MS}. */
    public static final Duration MAX_DELAY = Duration.ofMillis(MAX_DUE_MS);
    /** No option set: every job option falls back to the queue's defaults, then to BullMQ's. */
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
    private final Duration timeout;
    /** BullMQ's stored flag of the one child-failure policy set: fpof, cpof, idof or rdof; null for none. */
    private final String parentPolicy;

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
        timeout = b.timeout;
        parentPolicy = b.parentPolicy;
    }

    /** {@return a builder with no option set} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these options, to change some of them} */
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
        b.timeout = timeout;
        b.parentPolicy = parentPolicy;
        return b;
    }

    /**
     * These options, with the unset ones taken from {@code defaults}, except the job id, which is never a default
     * (as in BullMQ: every add without an id of its own would otherwise be the first job again).
     *
     * @param defaults the options to fill in from, such as the queue's default job options
     * @return the merged options
     */
    public JobOptions withDefaults(JobOptions defaults) {
        Builder b = toBuilder();
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
        if (b.timeout == null) b.timeout = defaults.timeout;
        if (b.parentPolicy == null) b.parentPolicy = defaults.parentPolicy;
        return b.build();
    }

    /** {@return the custom id, or null for an id from the queue's counter} */
    public String jobId() { return jobId; }
    /** {@return the delay before the job may run; zero when unset} */
    public Duration delay() { return delay == null ? Duration.ZERO : delay; }
    /** {@return the priority, from 1 (first) to {@value #MAX_PRIORITY}; 0, the default, for none} */
    public int priority() { return priority == null ? 0 : priority; }
    /** {@return whether the job goes to the front of the wait list; false when unset} */
    public boolean lifo() { return lifo != null && lifo; }
    /** {@return whether delay was set, even to zero: set options are stored in the job's options, as BullMQ does} */
    public boolean hasDelay() { return delay != null; }
    /** {@return whether priority was set, even to 0} */
    public boolean hasPriority() { return priority != null; }
    /** {@return whether lifo was set, even to false} */
    public boolean hasLifo() { return lifo != null; }
    /** {@return how many times the job may run in all, as stored; 0 (the default) and 1 both mean a single try} */
    public int attempts() { return attempts == null ? 0 : attempts; }
    /** {@return the wait before a retry, or null to retry at once} */
    public Backoff backoff() { return backoff; }
    /** {@return which completed jobs to keep, or null when unset (the worker's default applies, else all are kept)} */
    public KeepJobs removeOnComplete() { return removeOnComplete; }
    /** {@return which failed jobs to keep, or null when unset (the worker's default applies, else all are kept)} */
    public KeepJobs removeOnFail() { return removeOnFail; }
    /** {@return the job's creation time, or null when unset (the time of the add)} */
    public Instant timestamp() { return timestamp; }
    /** {@return how many stack traces of failed attempts the job keeps, or null when unset (all)} */
    public Integer stackTraceLimit() { return stackTraceLimit; }
    /** {@return how many log lines the job keeps (the newest), or null when unset (all)} */
    public Integer keepLogs() { return keepLogs; }
    /** {@return the largest {@code data} JSON in bytes that an add accepts, or null when unset (no limit)} */
    public Integer sizeLimit() { return sizeLimit; }
    /** {@return the deduplication options, or null when the job is not deduplicated} */
    public Deduplication deduplication() { return deduplication; }
    /** {@return true when this job, as a child of a flow, fails its parent when it fails for good} */
    public boolean failParentOnFailure() { return "fpof".equals(parentPolicy); }
    /** {@return true when this job, as a child, lets its parent run at once when it fails for good} */
    public boolean continueParentOnFailure() { return "cpof".equals(parentPolicy); }
    /** {@return true when this job's final failure is recorded in its parent as ignored, and the parent goes on} */
    public boolean ignoreDependencyOnFailure() { return "idof".equals(parentPolicy); }
    /** {@return true when this job's final failure just removes it from its parent's pending children} */
    public boolean removeDependencyOnFailure() { return "rdof".equals(parentPolicy); }

    /** The stored flag of the child-failure policy (fpof, cpof, idof, rdof), or null. */
    String parentPolicy() { return parentPolicy; }

    /** {@return how long one attempt may run before it is cancelled and failed, or null for the worker's default} */
    public Duration timeout() { return timeout; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JobOptions)) return false;
        JobOptions x = (JobOptions) o;
        return Objects.equals(jobId, x.jobId) && Objects.equals(delay, x.delay) && Objects.equals(priority, x.priority)
                && Objects.equals(lifo, x.lifo) && Objects.equals(attempts, x.attempts)
                && Objects.equals(backoff, x.backoff) && Objects.equals(removeOnComplete, x.removeOnComplete)
                && Objects.equals(removeOnFail, x.removeOnFail) && Objects.equals(timestamp, x.timestamp)
                && Objects.equals(stackTraceLimit, x.stackTraceLimit) && Objects.equals(keepLogs, x.keepLogs)
                && Objects.equals(sizeLimit, x.sizeLimit) && Objects.equals(deduplication, x.deduplication)
                && Objects.equals(timeout, x.timeout) && Objects.equals(parentPolicy, x.parentPolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jobId, delay, priority, lifo, attempts, backoff, removeOnComplete, removeOnFail, timestamp,
                stackTraceLimit, keepLogs, sizeLimit, deduplication, timeout, parentPolicy);
    }

    @Override
    public String toString() {
        return "JobOptions{jobId=" + jobId + ", delay=" + delay + ", priority=" + priority + ", lifo=" + lifo
                + ", attempts=" + attempts + ", backoff=" + backoff + ", removeOnComplete=" + removeOnComplete
                + ", removeOnFail=" + removeOnFail + ", timestamp=" + timestamp + ", stackTraceLimit="
                + stackTraceLimit + ", keepLogs=" + keepLogs + ", sizeLimit=" + sizeLimit
                + (deduplication != null ? ", deduplication=" + deduplication : "")
                + (timeout != null ? ", timeout=" + timeout : "")
                + (parentPolicy != null ? ", onFailure=" + parentPolicy : "") + "}";
    }

    /**
     * A builder of {@link JobOptions}. Each setter checks its value at once and throws a {@link ValidationException}
     * naming the field. An option left unset takes the queue's default; an option set is stored in the job's
     * options even at its default value, as BullMQ stores what it is given. Not thread-safe.
     */
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
        private Duration timeout;
        private String parentPolicy;

        private Builder() {
        }

        /**
         * A custom id. Adding a job whose id exists adds nothing and returns the existing job. BullMQ's rules apply: not
         * an integer (Redis counters own those), not {@code "0"}, not starting with {@code "0:"}, and no {@code ':'}.
         * Default: none, so the queue's counter gives {@code "1"}, {@code "2"}, ...
         *
         * @param jobId the id; null or empty for none
         * @return this builder
         */
        public Builder jobId(String jobId) {
            if (jobId != null && !jobId.isEmpty()) {
                checkJobId(jobId);
            }
            this.jobId = jobId == null || jobId.isEmpty() ? null : jobId;
            return this;
        }

        /** An id as another producer stored it, accepted there: read back without bull4j's checks. */
        Builder jobIdUnchecked(String jobId) {
            this.jobId = jobId == null || jobId.isEmpty() ? null : jobId;
            return this;
        }

        /**
         * How long to wait, from the job's timestamp, before it may run; until then it is {@link JobState#DELAYED}.
         * Default: zero.
         *
         * @param delay zero or positive
         * @return this builder
         */
        public Builder delay(Duration delay) {
            ValidationException.check(delay != null && !delay.isNegative(), "delay",
                    "must be zero or positive (was " + delay + ")");
            ValidationException.check(delay.compareTo(MAX_DELAY) <= 0, "delay",
                    "must be at most " + MAX_DELAY.toMillis() + " ms (was " + delay + ")");
            this.delay = delay;
            return this;
        }

        /**
         * The priority: 1 runs first, {@value JobOptions#MAX_PRIORITY} last, first-in first-out within one priority. 0,
         * the default, means none: such jobs run before all prioritized ones.
         *
         * @param priority from 0 to {@value JobOptions#MAX_PRIORITY}
         * @return this builder
         */
        public Builder priority(int priority) {
            ValidationException.check(priority >= 0 && priority <= MAX_PRIORITY, "priority",
                    "must be between 0 and " + MAX_PRIORITY + " (was " + priority + ")");
            this.priority = priority;
            return this;
        }

        /**
         * Whether the job goes to the front of the wait list instead of the back. Default {@code false}.
         *
         * @param lifo true for last-in first-out
         * @return this builder
         */
        public Builder lifo(boolean lifo) {
            this.lifo = lifo;
            return this;
        }

        /**
         * How many times the job may run in all, the first try included. Default 0, which like 1 means a single try.
         *
         * @param attempts zero or more
         * @return this builder
         */
        public Builder attempts(int attempts) {
            ValidationException.check(attempts >= 0, "attempts", "must be >= 0 (was " + attempts + ")");
            this.attempts = attempts;
            return this;
        }

        /**
         * The wait before each retry. Default: none, so that a failed attempt is retried at once.
         *
         * @param backoff the backoff, or null for none
         * @return this builder
         */
        public Builder backoff(Backoff backoff) {
            this.backoff = backoff;
            return this;
        }

        /**
         * Which completed jobs to keep; trimmed when a job completes. Default: unset, so the worker's
         * {@code removeOnComplete} applies, else all are kept.
         *
         * @param keep which jobs to keep, or null for unset
         * @return this builder
         */
        public Builder removeOnComplete(KeepJobs keep) {
            this.removeOnComplete = keep;
            return this;
        }

        /**
         * {@code true} removes the job as soon as it completes ({@link KeepJobs#none()}); {@code false} keeps all
         * ({@link KeepJobs#all()}). Default: unset, as for {@link #removeOnComplete(KeepJobs)}.
         *
         * @param remove whether to remove the job when it completes
         * @return this builder
         */
        public Builder removeOnComplete(boolean remove) {
            return removeOnComplete(remove ? KeepJobs.none() : KeepJobs.all());
        }

        /**
         * Which failed jobs to keep; trimmed when a job fails for good. Default: unset, so the worker's
         * {@code removeOnFail} applies, else all are kept.
         *
         * @param keep which jobs to keep, or null for unset
         * @return this builder
         */
        public Builder removeOnFail(KeepJobs keep) {
            this.removeOnFail = keep;
            return this;
        }

        /**
         * {@code true} removes the job as soon as it fails for good ({@link KeepJobs#none()}); {@code false} keeps all
         * ({@link KeepJobs#all()}). Default: unset, as for {@link #removeOnFail(KeepJobs)}.
         *
         * @param remove whether to remove the job when it fails
         * @return this builder
         */
        public Builder removeOnFail(boolean remove) {
            return removeOnFail(remove ? KeepJobs.none() : KeepJobs.all());
        }

        /**
         * The job's creation time; a delay counts from it. Default: the time of the add.
         *
         * @param timestamp not before the epoch
         * @return this builder
         */
        public Builder timestamp(Instant timestamp) {
            ValidationException.check(timestamp != null && !timestamp.isBefore(Instant.EPOCH)
                    && !timestamp.isAfter(Instant.ofEpochMilli(MAX_DUE_MS)), "timestamp",
                    "must be a non-negative epoch time up to " + Instant.ofEpochMilli(MAX_DUE_MS) + " (was "
                            + timestamp + ")");
            this.timestamp = timestamp;
            return this;
        }

        /**
         * How many stack traces of failed attempts to keep on the job (the newest). Default: unset, which keeps all.
         *
         * @param limit zero or more
         * @return this builder
         */
        public Builder stackTraceLimit(int limit) {
            ValidationException.check(limit >= 0, "stackTraceLimit", "must be >= 0 (was " + limit + ")");
            this.stackTraceLimit = limit;
            return this;
        }

        /**
         * How many lines of {@link Job#log(String)} to keep (the newest). 0 keeps all, as in BullMQ, which treats 0
         * as "no limit". Default: unset, which keeps all.
         *
         * @param count zero or more
         * @return this builder
         */
        public Builder keepLogs(int count) {
            ValidationException.check(count >= 0, "keepLogs", "must be >= 0 (was " + count + ")");
            this.keepLogs = count;
            return this;
        }

        /**
         * The largest {@code data} JSON, in UTF-8 bytes, that an add accepts; a larger one is refused with a
         * {@link ValidationException} before anything is written. Default: unset, no limit.
         *
         * @param bytes a positive size
         * @return this builder
         */
        public Builder sizeLimit(int bytes) {
            ValidationException.check(bytes > 0, "sizeLimit", "must be > 0 (was " + bytes + ")");
            this.sizeLimit = bytes;
            return this;
        }

        /**
         * Collapses adds with the same deduplication id; see {@link Deduplication}.
         *
         * @param deduplication the options, or null for none
         * @return this builder
         */
        public Builder deduplication(Deduplication deduplication) {
            this.deduplication = deduplication;
            return this;
        }

        /**
         * How long one attempt may run (bull4j only): when it elapses, the processor is cancelled as by
         * {@link Worker#cancelJob} (its {@link Job#cancellation()} marked, its thread interrupted) and the attempt
         * fails with "job timed out after N ms", retried per {@link #attempts}; a processor that ignores it is let go
         * after a grace period, its slot freed. Stored in the job's options as {@code timeout} (ms), so any bull4j
         * worker enforces it; a BullMQ worker keeps it and ignores it. Default: the worker's
         * {@link WorkerOptions.Builder#timeout}, else none.
         *
         * @param timeout at least 1 ms
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            ValidationException.checkDuration(timeout, "timeout");
            ValidationException.check(timeout != null && timeout.toMillis() >= 1, "timeout",
                    "must be at least 1 ms (was " + timeout + ")");
            this.timeout = timeout;
            return this;
        }

        /**
         * For a child of a flow: when this job fails for good, its parent fails too (it is moved to wait with a
         * deferred failure that the next worker records), and so on up while the parents have this option.
         * At most one of the four child-failure options may be set.
         *
         * @param on true to set it, false to clear it
         * @return this builder
         * @throws ValidationException when another child-failure option is set
         */
        public Builder failParentOnFailure(boolean on) {
            return policy("failParentOnFailure", "fpof", on);
        }

        /**
         * For a child of a flow: when this job fails for good, its parent runs at once, even with other children
         * pending; the failure is listed in {@link Job#getFailedChildrenValues()}. At most one child-failure option.
         *
         * @param on true to set it, false to clear it
         * @return this builder
         * @throws ValidationException when another child-failure option is set
         */
        public Builder continueParentOnFailure(boolean on) {
            return policy("continueParentOnFailure", "cpof", on);
        }

        /**
         * For a child of a flow: when this job fails for good, the parent no longer waits for it and records the
         * failure (see {@link Job#getIgnoredChildrenFailures()}); the parent runs once its other children are done.
         * At most one child-failure option.
         *
         * @param on true to set it, false to clear it
         * @return this builder
         * @throws ValidationException when another child-failure option is set
         */
        public Builder ignoreDependencyOnFailure(boolean on) {
            return policy("ignoreDependencyOnFailure", "idof", on);
        }

        /**
         * For a child of a flow: when this job fails for good, the parent no longer waits for it, and keeps no
         * trace of it. At most one child-failure option.
         *
         * @param on true to set it, false to clear it
         * @return this builder
         * @throws ValidationException when another child-failure option is set
         */
        public Builder removeDependencyOnFailure(boolean on) {
            return policy("removeDependencyOnFailure", "rdof", on);
        }

        private Builder policy(String field, String flag, boolean on) {
            if (!on) {
                if (flag.equals(parentPolicy)) {
                    parentPolicy = null;
                }
                return this;
            }
            if (parentPolicy != null && !parentPolicy.equals(flag)) {
                throw new ValidationException(field, "cannot be combined with " + policyName(parentPolicy)
                        + ": at most one of failParentOnFailure, continueParentOnFailure, ignoreDependencyOnFailure "
                        + "and removeDependencyOnFailure may be set");
            }
            parentPolicy = flag;
            return this;
        }

        /** Sets the policy from its stored flag (reading options back); unknown flags are ignored. */
        Builder parentPolicyUnchecked(String flag) {
            parentPolicy = flag;
            return this;
        }

        /** {@return the options} */
        public JobOptions build() {
            return new JobOptions(this);
        }
    }

    /**
     * BullMQ's rules for custom ids, so that both sides accept the same ids. Beyond them, "0:" (a legacy delay
     * marker that scripts skip in the wait list) is refused.
     */
    private static String policyName(String flag) {
        switch (flag) {
            case "fpof": return "failParentOnFailure";
            case "cpof": return "continueParentOnFailure";
            case "idof": return "ignoreDependencyOnFailure";
            default: return "removeDependencyOnFailure";
        }
    }

    /** Refuses a due time past {@link #MAX_DUE_MS}, naming {@code field}. */
    static void checkDue(long startMs, Duration delay, String field) {
        ValidationException.check(delay.toMillis() <= MAX_DUE_MS - startMs, field, "of " + delay.toMillis()
                + " ms from " + java.time.Instant.ofEpochMilli(startMs) + " would be due after "
                + java.time.Instant.ofEpochMilli(MAX_DUE_MS) + ", the latest time a delayed job's score can hold "
                + "(due ms * 4096 must fit a long)");
    }

    static void checkJobId(String id) {
        ValidationException.check(!isOwnParseInt(id), "jobId",
                "custom ids cannot be integers (was \"" + id + "\"); Redis counters own those");
        ValidationException.check(!id.equals("0") && !id.startsWith("0:"), "jobId", "cannot be \"0\" or start with \"0:\"");
        ValidationException.check(id.indexOf(':') < 0 || id.split(":", -1).length == 3, "jobId",
                "cannot contain ':' (was \"" + id + "\")");
        // stricter than BullMQ, which lets "meta" overwrite the queue's meta hash with a job
        ValidationException.check(!QueueKeys.RESERVED_NAMES.contains(id), "jobId",
                "cannot be \"" + id + "\", the name of one of the queue's own keys " + QueueKeys.RESERVED_NAMES);
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
