package io.bull4j;

import java.time.Duration;
import java.util.Objects;

/**
 * How many finished jobs to keep, for {@code removeOnComplete} and {@code removeOnFail}, in each of BullMQ's forms:
 * {@link #all()} ({@code false}), {@link #none()} ({@code true}: remove at once), {@link #count(int)} (a number: the
 * newest n), and the object {@code {count, age}} ({@link #age(Duration)}, {@link #of(Integer, Duration)}). The form
 * is kept, so a job's stored options read as BullMQ stores the same choice. Trimming happens when a job finishes,
 * as in BullMQ. Immutable and thread-safe.
 *
 * <p>As in BullMQ, a count of 0 removes the job at once, a negative count keeps all, and an age of 0 keeps no
 * finished job of that state (this one included) once the job finishes.
 *
 * <pre>{@code
 * JobOptions.builder()
 *     .removeOnComplete(KeepJobs.count(1000))                              // the newest 1000
 *     .removeOnFail(KeepJobs.age(Duration.ofDays(7)).andCount(10_000))     // a week, at most 10,000
 *     .build();
 * }</pre>
 */
public final class KeepJobs {
    /** How the option is written in a job's options, as in BullMQ: {@code true}/{@code false}, n, {@code {count, age}}. */
    public enum Form {
        /** {@code true} ({@link #none()}) or {@code false} ({@link #all()}). */
        BOOLEAN,
        /** A number: the newest n ({@link #count(int)}). */
        NUMBER,
        /** An object {@code {count, age}} ({@link #age(Duration)}, {@link #of(Integer, Duration)}). */
        OBJECT
    }

    private static final KeepJobs ALL = new KeepJobs(Form.BOOLEAN, -1, null);
    private static final KeepJobs NONE = new KeepJobs(Form.BOOLEAN, 0, null);

    private final Form form;
    private final Integer count;    // null = no count limit (only in the object form)
    private final Duration age;     // null = any age

    private KeepJobs(Form form, Integer count, Duration age) {
        this.form = form;
        this.count = count;
        this.age = age;
    }

    /** {@return a policy that keeps every finished job (BullMQ's {@code false})} */
    public static KeepJobs all() {
        return ALL;
    }

    /** {@return a policy that removes the job as soon as it finishes (BullMQ's {@code true})} */
    public static KeepJobs none() {
        return NONE;
    }

    /**
     * The newest {@code count} finished jobs (BullMQ's number form).
     *
     * @param count how many to keep; 0 removes the job at once, a negative count keeps all
     * @return the policy
     */
    public static KeepJobs count(int count) {
        return new KeepJobs(Form.NUMBER, count, null);
    }

    /**
     * The jobs that finished less than {@code age} ago (BullMQ's {@code {age}}, in seconds, fractions allowed).
     *
     * @param age zero or positive; 0 keeps no finished job of that state once the job finishes
     * @return the policy
     */
    public static KeepJobs age(Duration age) {
        return new KeepJobs(Form.OBJECT, null, checkAge(age));
    }

    /**
     * BullMQ's object form {@code {count, age}}; either may be null (no limit of that kind; both null is {@code {}},
     * which keeps all). {@code of(5, null)} is stored as {@code {"count":5}}, where {@link #count(int)} stores 5.
     *
     * @param count the newest jobs to keep, or null for no count limit
     * @param age the age limit, zero or positive, or null for none
     * @return the policy
     */
    public static KeepJobs of(Integer count, Duration age) {
        return new KeepJobs(Form.OBJECT, count, age == null ? null : checkAge(age));
    }

    private static Duration checkAge(Duration age) {
        ValidationException.checkDuration(age, "keepJobs.age");
        ValidationException.check(age != null && !age.isNegative(), "keepJobs.age",
                "must be zero or positive (was " + age + ")");
        return age;
    }

    /**
     * Keeps jobs younger than this policy's age, and at most {@code count} of them ({@code {age, count}}).
     *
     * @param count the newest jobs to keep
     * @return the combined policy
     */
    public KeepJobs andCount(int count) {
        return new KeepJobs(Form.OBJECT, count, age);
    }

    /** {@return the newest jobs kept: 0 removes the job at once, -1 (or any negative) when unbounded} */
    public int count() {
        return count == null ? -1 : count;
    }

    /** {@return the age beyond which jobs are removed; null when any age is kept} */
    public Duration age() {
        return age;
    }

    /** {@return the form the option is stored in} */
    public Form form() {
        return form;
    }

    /** {@return false only for the object form without a count ({@code {}} or {@code {age}})} */
    public boolean hasCount() {
        return count != null;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof KeepJobs)) return false;
        KeepJobs k = (KeepJobs) o;
        return k.form == form && Objects.equals(k.count, count) && Objects.equals(k.age, age);
    }

    @Override
    public int hashCode() {
        return Objects.hash(form, count, age);
    }

    @Override
    public String toString() {
        if (this.equals(ALL)) return "KeepJobs{all}";
        if (this.equals(NONE)) return "KeepJobs{none}";
        if (form == Form.NUMBER) return "KeepJobs{count=" + count + "}";
        return "KeepJobs{" + (count != null ? "count=" + count : "") + (count != null && age != null ? ", " : "")
                + (age != null ? "age=" + age : "") + "}";
    }
}
