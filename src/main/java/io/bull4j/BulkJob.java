package io.bull4j;

/**
 * One job of an {@link Queue#addBulk(java.util.List)}: a name, data, and options (null for the queue defaults).
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

    public static BulkJob of(String name, Object data) {
        return new BulkJob(name, data, null);
    }

    public static BulkJob of(String name, Object data, JobOptions options) {
        return new BulkJob(name, data, options);
    }

    public String name() {
        return name;
    }

    public Object data() {
        return data;
    }

    public JobOptions options() {
        return options;
    }
}
