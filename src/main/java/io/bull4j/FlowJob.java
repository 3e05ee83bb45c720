package io.bull4j;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One node of a flow for {@link FlowProducer#add(FlowJob)}: a job (name, queue, data, options) and the jobs it waits
 * for, its children, each of which may have children of its own, in any queue.
 *
 * <pre>{@code
 * FlowJob flow = FlowJob.builder("publish", "posts").data(Map.of("post", 42))
 *         .child(FlowJob.builder("thumbnail", "images").data(Map.of("size", 64)).build())
 *         .child(FlowJob.builder("thumbnail", "images").data(Map.of("size", 256)).build())
 *         .build();
 * }</pre>
 *
 * <p>Immutable (the data object is kept as given and serialized when the flow is added), so safe to share and to
 * add more than once; a node without a {@link JobOptions#jobId() jobId} gets a new random UUID at each add.
 */
public final class FlowJob {
    private final String name;
    private final String queueName;
    private final String prefix;
    private final Object data;
    private final JobOptions options;
    private final List<FlowJob> children;
    private final ParentRef parent;

    private FlowJob(Builder b) {
        this.name = b.name;
        this.queueName = b.queueName;
        this.prefix = b.prefix;
        this.data = b.data;
        this.options = b.options;
        this.children = Collections.unmodifiableList(new ArrayList<>(b.children));
        this.parent = b.parent;
    }

    /**
     * A builder for a node named {@code name} in queue {@code queueName}.
     *
     * @param name the job's name
     * @param queueName the queue the job goes to
     * @return the builder
     * @throws ValidationException when the name or queue name is null or the queue name invalid
     */
    public static Builder builder(String name, String queueName) {
        return new Builder(name, queueName);
    }

    /** {@return the job's name} */
    public String name() {
        return name;
    }

    /** {@return the queue the job goes to} */
    public String queueName() {
        return queueName;
    }

    /** {@return this node's key prefix, or null for the producer's} */
    public String prefix() {
        return prefix;
    }

    /** {@return the job's data, as given (null is stored as {@code {}})} */
    public Object data() {
        return data;
    }

    /** {@return the job's options; never null} */
    public JobOptions options() {
        return options;
    }

    /** {@return the children, in the order given; empty for a leaf} */
    public List<FlowJob> children() {
        return children;
    }

    /** {@return the existing job this flow's root becomes a child of, or null} */
    public ParentRef parent() {
        return parent;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FlowJob)) return false;
        FlowJob x = (FlowJob) o;
        return Objects.equals(parent, x.parent) && name.equals(x.name) && queueName.equals(x.queueName) && Objects.equals(prefix, x.prefix)
                && Objects.equals(data, x.data) && options.equals(x.options) && children.equals(x.children);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, queueName, prefix, data, options, children);
    }

    @Override
    public String toString() {
        return "FlowJob{name=" + name + ", queue=" + queueName + (prefix != null ? ", prefix=" + prefix : "")
                + ", options=" + options + (children.isEmpty() ? "" : ", children=" + children) + "}";
    }

    /** A builder of {@link FlowJob}; each setter checks its value at once. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private final String queueName;
        private String prefix;
        private Object data;
        private JobOptions options = JobOptions.DEFAULTS;
        private final List<FlowJob> children = new ArrayList<>();
        private ParentRef parent;

        private Builder(String name, String queueName) {
            ValidationException.check(name != null, "name", "must not be null");
            new io.bull4j.internal.keys.QueueKeys(io.bull4j.internal.keys.QueueKeys.DEFAULT_PREFIX, queueName);
            this.name = name;
            this.queueName = queueName;
        }

        /**
         * The job's data, serialized to JSON by the producer's mapper when the flow is added.
         *
         * @param data any value Jackson writes as JSON; null for {@code {}}
         * @return this builder
         */
        public Builder data(Object data) {
            this.data = data;
            return this;
        }

        /**
         * The job's options. The child-failure options ({@link JobOptions.Builder#failParentOnFailure(boolean)} and
         * its three siblings) say what this job's final failure does to its parent. Deduplication is allowed only
         * on a flow of one node (no parent, no children), as in BullMQ; the add refuses it otherwise.
         *
         * @param options the options; null for none
         * @return this builder
         */
        public Builder options(JobOptions options) {
            this.options = options == null ? JobOptions.DEFAULTS : options;
            return this;
        }

        /**
         * A key prefix for this node's queue other than the producer's. On Redis Cluster every queue of a flow must
         * share one hash tag.
         *
         * @param prefix the prefix, without ':'
         * @return this builder
         * @throws ValidationException when the prefix is blank or holds ':'
         */
        public Builder prefix(String prefix) {
            this.prefix = io.bull4j.internal.keys.QueueKeys.checkPrefix(prefix);
            return this;
        }

        /**
         * Adds a child: this job waits in {@code waiting-children} until its children are done.
         *
         * @param child the child node
         * @return this builder
         * @throws ValidationException when the child is null
         */
        public Builder child(FlowJob child) {
            ValidationException.check(child != null, "children", "must not hold null");
            children.add(child);
            return this;
        }

        /**
         * Adds children, in order.
         *
         * @param children the child nodes
         * @return this builder
         * @throws ValidationException when the list is null or holds null
         */
        public Builder children(List<FlowJob> children) {
            ValidationException.check(children != null, "children", "must not be null");
            children.forEach(this::child);
            return this;
        }

        /**
         * Makes this node, the root of the flow added, a child of an existing job (BullMQ's {@code opts.parent}): the
         * parent waits for it too. This is how a running parent adds children in the step pattern (see
         * {@link Job#moveToWaitingChildren()}). Refused on a node used as a child of another node.
         *
         * @param parent the existing parent; its job must exist when the flow is added
         * @return this builder
         */
        public Builder parent(ParentRef parent) {
            this.parent = parent;
            return this;
        }

        /** {@return the node} */
        public FlowJob build() {
            return new FlowJob(this);
        }
    }
}
