package io.bull4j;

/**
 * One job of an {@link Queue#addBulk(java.util.List)}: a name, data, and options (null for the queue defaults).
 * Immutable.
 *
 * <pre>{@code queue.addBulk(List.of(BulkJob.of("welcome", Map.of("to", "a@x.io")), BulkJob.of("welcome", data2)));}</pre>
 */
public final class BulkJob {
    private final String name;
    private final Object data;
    private final JobOptions options;

    private BulkJob(String name, Object data, JobOptions options) {
        this.name = name;
        this.data = data;
        this.options = options;
    }

    /**
     * A job with the queue's default options.
     *
     * @param name the job's name
     * @param data the job's data, serialized to JSON with the queue's mapper
     * @return the bulk entry
     */
    public static BulkJob of(String name, Object data) {
        return new BulkJob(name, data, null);
    }

    /**
     * A job with its own options.
     *
     * @param name the job's name
     * @param data the job's data, serialized to JSON with the queue's mapper
     * @param options the job's options, or null for the queue's defaults
     * @return the bulk entry
     */
    public static BulkJob of(String name, Object data, JobOptions options) {
        return new BulkJob(name, data, options);
    }

    /** {@return the job's name} */
    public String name() {
        return name;
    }

    /** {@return the job's data, as given} */
    public Object data() {
        return data;
    }

    /** {@return the job's options, or null for the queue's defaults} */
    public JobOptions options() {
        return options;
    }
}
