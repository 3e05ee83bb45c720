package io.bull4j;

import java.util.Objects;

/**
 * What each run of a job scheduler adds: a job name (the scheduler's id when null), its data and its options
 * (merged over the queue's default job options). The options may not set a job id or a delay: the scheduler sets
 * both for every run.
 */
public final class JobTemplate {
    private final String name;
    private final Object data;
    private final JobOptions options;

    private JobTemplate(String name, Object data, JobOptions options) {
        this.name = name;
        this.data = data;
        this.options = options;
    }

    /**
     * A template with a name and data, and the queue's default options.
     *
     * @param name the job name, or null for the scheduler's id
     * @param data any value Jackson writes as JSON; null for none ({@code {}})
     * @return the template
     */
    public static JobTemplate of(String name, Object data) {
        return of(name, data, null);
    }

    /**
     * A template with a name, data and job options; the scheduler sets each run's id and delay itself.
     *
     * @param name the job name, or null for the scheduler's id
     * @param data any value Jackson writes as JSON; null for none ({@code {}})
     * @param options null for the queue's defaults
     * @return the template
     * @throws ValidationException when the options set a job id or a delay
     */
    public static JobTemplate of(String name, Object data, JobOptions options) {
        if (options != null) {
            ValidationException.check(options.jobId() == null, "template.options.jobId",
                    "is set by the scheduler for every run");
            ValidationException.check(!options.hasDelay(), "template.options.delay",
                    "is set by the scheduler for every run");
        }
        return new JobTemplate(name, data, options);
    }

    /** {@return the job name, or null for the scheduler's id} */
    public String name() { return name; }
    /** {@return the data of every run, or null for none} */
    public Object data() { return data; }
    /** {@return the options of every run, or null for the queue's defaults} */
    public JobOptions options() { return options; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JobTemplate)) {
            return false;
        }
        JobTemplate t = (JobTemplate) o;
        return Objects.equals(name, t.name) && Objects.equals(data, t.data) && Objects.equals(options, t.options);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, data, options);
    }

    @Override
    public String toString() {
        return "JobTemplate{name=" + name + ", data=" + data + ", options=" + options + "}";
    }
}
