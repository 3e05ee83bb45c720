package io.bull4j;

import java.util.Collections;
import java.util.List;

/**
 * A job of a flow with its children, as {@link FlowProducer#add(FlowJob)} stored it or
 * {@link FlowProducer#getFlow(String, String)} read it.
 *
 * <pre>{@code
 * JobNode root = flows.add(flow);
 * root.job().id();                 // the parent's id
 * root.children().get(0).job();    // its first child
 * }</pre>
 *
 * <p>Immutable, a snapshot taken when it was built.
 */
public final class JobNode {
    private final Job job;
    private final List<JobNode> children;

    JobNode(Job job, List<JobNode> children) {
        this.job = job;
        this.children = Collections.unmodifiableList(children);
    }

    /** {@return the job} */
    public Job job() {
        return job;
    }

    /** {@return the children read or added with this job; empty for a leaf or past the depth read} */
    public List<JobNode> children() {
        return children;
    }

    @Override
    public String toString() {
        return "JobNode{" + job.queueName() + ":" + job.id() + (children.isEmpty() ? "" : ", children=" + children)
                + "}";
    }
}
