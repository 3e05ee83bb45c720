package io.bull4j;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.script.AddFlow;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Adds flows: trees of jobs over any queues, where a parent runs once all its children are done and reads their
 * results ({@link Job#getChildrenValues()}). Wire-compatible with BullMQ's {@code FlowProducer}: a flow added here
 * can be run by Node workers, and the reverse.
 *
 * <pre>{@code
 * try (FlowProducer flows = new FlowProducer(QueueOptions.builder().connection(redis).build())) {
 *     JobNode tree = flows.add(FlowJob.builder("publish", "posts").data(post)
 *             .child(FlowJob.builder("thumbnail", "images").data(small).build())
 *             .child(FlowJob.builder("thumbnail", "images").data(large).build())
 *             .build());
 * }
 * }</pre>
 *
 * <p>Of its {@link QueueOptions} it uses the connection, the prefix (a node may give its own), the object mapper,
 * the clock and the telemetry (spans {@code addFlow}/{@code addBulkFlows} and one {@code addNode} per job, as
 * BullMQ's); the default job options are not applied (see {@link #add(FlowJob, Map)} for defaults per queue). A
 * flow is added in one Redis script: all of its jobs are stored, or (when a node's job exists under another parent,
 * or a parent named from outside the flow is missing) none. Nodes without a job id get a random UUID, as in BullMQ 6.7. On Redis Cluster all queues of one flow must
 * share a hash tag, which is checked before anything is written. Thread-safe. {@link #close()} closes the connection
 * only when the producer opened it.
 */
public final class FlowProducer implements AutoCloseable {
    private final QueueOptions opts;
    private final Bull4jConnection connection;
    private final boolean ownsConnection;
    private volatile boolean closed;

    /**
     * A producer with these options.
     *
     * @param options the connection, prefix, mapper, clock and telemetry to use; {@link QueueOptions#DEFAULTS} for a
     *        connection of its own from {@code REDIS_URL} (else {@code redis://localhost:6379})
     * @throws ValidationException when options is null
     * @throws RedisException when Redis cannot be reached
     */
    public FlowProducer(QueueOptions options) {
        ValidationException.check(options != null, "options", "must not be null");
        this.opts = options;
        this.ownsConnection = options.connection() == null;
        this.connection = ownsConnection ? Bull4jConnection.create() : options.connection();
    }

    /**
     * Adds one flow, atomically.
     *
     * @param flow the root node
     * @return the tree as stored (ids filled in)
     * @throws ValidationException on bad input (data that cannot be serialized or over its sizeLimit, a
     *         {@link FlowJob.Builder#parent(ParentRef) parent} below the root, deduplication on a node with a parent
     *         or children, queues on different Cluster slots, a node with the job id of one of its ancestors or one
     *         job under two parents: field {@code jobId}), before anything is written
     * @throws JobException when a node's job already exists under another parent that still exists (reason
     *         {@code PARENT_CONFLICT}) or the root's parent does not exist ({@code JOB_NOT_FOUND}); nothing is
     *         written
     * @throws RedisException when Redis fails
     */
    public JobNode add(FlowJob flow) {
        return add(flow, Map.of());
    }

    /**
     * Adds one flow, atomically, with default options per queue (BullMQ's {@code queuesOptions}): a node's
     * options that are not set are taken from its queue's entry.
     *
     * @param flow the root node
     * @param queueDefaults default job options by queue name; queues not listed have none. A job id there is
     *     refused ({@code queueDefaults.<queue>.jobId}): BullMQ ignores one, and as a default it would give every
     *     node of the queue one id
     * @return the tree as stored (ids filled in)
     * @throws ValidationException on bad input, before anything is written
     * @throws JobException when a node's job already exists under another parent; nothing is written
     * @throws RedisException when Redis fails
     */
    public JobNode add(FlowJob flow, Map<String, JobOptions> queueDefaults) {
        ValidationException.check(flow != null, "flow", "must not be null");
        ValidationException.check(queueDefaults != null, "queueDefaults", "must not be null");
        queueDefaults.forEach((queue, o) -> ValidationException.check(o == null || o.jobId() == null,
                "queueDefaults." + queue + ".jobId", "a job id is set per job, never as a default (was "
                        + (o == null ? null : o.jobId()) + ")"));
        return add(List.of(flow), queueDefaults, false).get(0);
    }

    /**
     * Adds several flows in one atomic call.
     *
     * @param flows the root nodes
     * @return the trees as stored, in the order given
     * @throws ValidationException on bad input, before anything is written
     * @throws JobException when a node's job already exists under another parent; nothing is written
     * @throws RedisException when Redis fails
     */
    public List<JobNode> addBulk(List<FlowJob> flows) {
        return add(flows, Map.of(), true);
    }

    private List<JobNode> add(List<FlowJob> flows, Map<String, JobOptions> queueDefaults, boolean bulk) {
        checkOpen();
        ValidationException.check(flows != null && flows.stream().noneMatch(java.util.Objects::isNull), "flows",
                "must not be null or hold null");
        if (flows.isEmpty()) {
            return List.of();
        }
        Telemetry telemetry = opts.telemetry();
        if (telemetry == null) {
            return send(new FlowPlan(this, queueDefaults, null, null), flows);
        }
        // spans as BullMQ's FlowProducer opens them: the call's, and under it one per node, parents above children
        Telemetry.Span span = bulk
                ? Traces.startAddBulkFlows(telemetry, flows.stream().map(FlowJob::name).toList())
                : Traces.startAddFlow(telemetry, flows.get(0).queueName(), flows.get(0).name());
        try {
            List<JobNode> added = send(new FlowPlan(this, queueDefaults, telemetry, span), flows);
            Traces.end(span, null);
            return added;
        } catch (RuntimeException e) {
            Traces.end(span, e);
            throw e;
        }
    }

    /** Plans the flows (validating every node first), then adds them in one script. */
    private List<JobNode> send(FlowPlan plan, List<FlowJob> flows) {
        try {
            for (FlowJob f : flows) {
                plan.addRoot(f);
            }
            plan.checkSlots(connection.link().isCluster());
        } catch (RuntimeException e) {
            plan.endNodeSpans(e);
            throw e;
        }
        plan.endNodeSpans(null);
        Duration budget = connection.link().commandTimeout().multipliedBy(1 + plan.nodes.size() / 200);
        AddFlow.Result r = Await.result(AddFlow.run(connection.link().scripts(), budget, clockMillis(), plan.specs()),
                budget.plusSeconds(1), "addFlow");
        if (r.refusedCode != 0) {
            throw plan.refusal(r.refusedCode, r.refusedIndex);
        }
        return plan.result(r.ids, r.created);
    }

    /**
     * Reads a flow back from Redis: the job and its children, down to 10 levels, at most 20 children of each kind
     * per parent (as BullMQ's defaults).
     *
     * @param id the root job's id
     * @param queueName the root job's queue
     * @return the tree, or null when the job does not exist
     * @throws RedisException when Redis fails
     */
    public JobNode getFlow(String id, String queueName) {
        return getFlow(id, queueName, 10, 20);
    }

    /**
     * Reads a flow back from Redis.
     *
     * @param id the root job's id
     * @param queueName the root job's queue (under the producer's prefix)
     * @param depth how many levels to read, the root being one (BullMQ's {@code depth})
     * @param maxChildren how many children of each kind (processed, pending, ignored, failed) to read per parent
     * @return the tree, or null when the job does not exist
     * @throws ValidationException when depth or maxChildren is below 1
     * @throws RedisException when Redis fails
     */
    public JobNode getFlow(String id, String queueName, int depth, int maxChildren) {
        checkOpen();
        ValidationException.check(id != null, "id", "must not be null");
        ValidationException.check(depth >= 1, "depth", "must be at least 1 (was " + depth + ")");
        ValidationException.check(maxChildren >= 1, "maxChildren", "must be at least 1 (was " + maxChildren + ")");
        return FlowReader.node(context(opts.prefix(), queueName), id, depth, maxChildren, this::contextOfKey);
    }

    /**
     * The context of a queue under {@code prefix}; made per call, as it is cheap (its key names): kept, one per
     * queue name, a producer of per-tenant queues grew without bound.
     */
    QueueContext context(String prefix, String queueName) {
        String p = prefix == null ? opts.prefix() : prefix;
        return new QueueContext(new QueueKeys(p, queueName), connection.link(), opts.objectMapper(), opts.clock());
    }

    /** The context of the queue a job key {@code P:Q:id} belongs to, or null when the key is not of that form. */
    QueueContext contextOfKey(String jobKey) {
        int first = jobKey.indexOf(':');
        int second = first < 0 ? -1 : jobKey.indexOf(':', first + 1);
        if (second < 0) {
            return null;
        }
        return context(jobKey.substring(0, first), jobKey.substring(first + 1, second));
    }

    long clockMillis() {
        return opts.clock().millis();
    }

    /** The {@code parent} field's JSON, in BullMQ's key order: id, queueKey, then the child-failure flag if any. */
    static String parentField(String id, String queueKey, String flag) {
        ObjectNode n = Json.DEFAULT.createObjectNode();
        n.put("id", id);
        n.put("queueKey", queueKey);
        if (flag != null) {
            n.put(flag, true);
        }
        return n.toString();
    }

    private void checkOpen() {
        if (closed) {
            throw new Bull4jException("flow producer is closed");
        }
    }

    /** Closes the connection when the producer opened it; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ownsConnection) {
            connection.close();
        }
    }
}
