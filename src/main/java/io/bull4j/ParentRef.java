package io.bull4j;

import java.util.Objects;

/**
 * The parent of a job in a flow: its id and its queue's qualified name {@code prefix:queue}, as BullMQ names them.
 *
 * <pre>{@code
 * ParentRef p = job.parent();   // null for a job without parent
 * p.id();                       // "order-17"
 * p.queue();                    // "bull:orders"
 * p.key();                      // "bull:orders:order-17"
 * }</pre>
 *
 * <p>Immutable.
 */
public final class ParentRef {
    private final String id;
    private final String queue;

    private ParentRef(String id, String queue) {
        this.id = id;
        this.queue = queue;
    }

    /**
     * A reference to job {@code id} of the queue {@code prefix:queue}.
     *
     * @param id the parent's job id
     * @param queue the parent queue's qualified name, {@code prefix:name}
     * @return the reference
     * @throws ValidationException when either is null or empty
     */
    public static ParentRef of(String id, String queue) {
        ValidationException.check(id != null && !id.isEmpty(), "parent.id", "must not be empty");
        ValidationException.check(queue != null && !queue.isEmpty(), "parent.queue", "must not be empty");
        return new ParentRef(id, queue);
    }

    /** {@return the parent's job id} */
    public String id() {
        return id;
    }

    /** {@return the parent queue's qualified name, {@code prefix:name}} */
    public String queue() {
        return queue;
    }

    /** {@return the parent's job key, {@code prefix:name:id}} */
    public String key() {
        return queue + ":" + id;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ParentRef && id.equals(((ParentRef) o).id) && queue.equals(((ParentRef) o).queue);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, queue);
    }

    @Override
    public String toString() {
        return key();
    }
}
