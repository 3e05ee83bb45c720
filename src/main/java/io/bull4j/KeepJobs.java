package io.bull4j;

import java.time.Duration;
import java.util.Objects;

/**
 * How many finished jobs to keep, for {@code removeOnComplete} and {@code removeOnFail}: {@link #all()},
 * {@link #none()} (remove at once), {@link #count(int)} newest, or those younger than {@link #age(Duration)}.
 * Trimming happens when a job finishes, as in BullMQ. Immutable and thread-safe.
 *
 * <pre>{@code
 * JobOptions.builder()
 *     .removeOnComplete(KeepJobs.count(1000))                              // the newest 1000
 *     .removeOnFail(KeepJobs.age(Duration.ofDays(7)).andCount(10_000))     // a week, at most 10,000
 *     .build();
 * }</pre>
 */
public final class KeepJobs {
    private static final KeepJobs ALL = new KeepJobs(-1, null);
    private static final KeepJobs NONE = new KeepJobs(0, null);

    private final int count;        // -1 = unbounded
    private final Duration age;     // null = any age

    private KeepJobs(int count, Duration age) {
        this.count = count;
        this.age = age;
    }

    /** {@return keep every finished job (BullMQ's {@code false})} */
    public static KeepJobs all() {
        return ALL;
    }

    /** {@return remove each job as soon as it finishes (BullMQ's {@code true})} */
    public static KeepJobs none() {
        return NONE;
    }

    /**
     * Keeps the newest {@code count} finished jobs.
     *
     * @param count zero or more; 0 is {@link #none()}
     * @return the policy
     */
    public static KeepJobs count(int count) {
        ValidationException.check(count >= 0, "keepJobs.count", "must be >= 0 (was " + count + ")");
        return count == 0 ? NONE : new KeepJobs(count, null);
    }

    /**
     * Keeps the finished jobs younger than {@code age}.
     *
     * @param age a positive age; stored to the millisecond (BullMQ counts in seconds, fractions allowed)
     * @return the policy
     */
    public static KeepJobs age(Duration age) {
        ValidationException.check(age != null && !age.isNegative() && !age.isZero(), "keepJobs.age",
                "must be positive (was " + age + ")");
        return new KeepJobs(-1, age);
    }

    /**
     * Keeps jobs younger than this policy's age, and at most {@code count} of them.
     *
     * @param count zero or more
     * @return the combined policy
     */
    public KeepJobs andCount(int count) {
        ValidationException.check(count >= 0, "keepJobs.count", "must be >= 0 (was " + count + ")");
        return new KeepJobs(count, age);
    }

    /** {@return the most jobs kept; -1 when unbounded} */
    public int count() {
        return count;
    }

    /** {@return the age beyond which jobs are removed; null when any age is kept} */
    public Duration age() {
        return age;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeepJobs && ((KeepJobs) o).count == count && Objects.equals(((KeepJobs) o).age, age);
    }

    @Override
    public int hashCode() {
        return Objects.hash(count, age);
    }

    @Override
    public String toString() {
        return this == ALL ? "KeepJobs{all}" : "KeepJobs{count=" + count + (age != null ? ", age=" + age : "") + "}";
    }
}
