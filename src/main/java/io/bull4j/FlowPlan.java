package io.bull4j;

import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.script.AddFlow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The nodes of one add call, parents before children (level by level, as BullMQ queues them). */
final class FlowPlan {
    final FlowProducer producer;
    final List<Planned> nodes = new ArrayList<>();

    final Map<String, JobOptions> queueDefaults;
    /** With telemetry: the span of the add call, parent of the roots' node spans; else null. */
    private final Telemetry telemetry;
    private final Telemetry.Span callSpan;
    /** The node spans started, to end (also those of nodes planned before a later node was refused). */
    private final List<Telemetry.Span> nodeSpans = new ArrayList<>();

    FlowPlan(FlowProducer producer, Map<String, JobOptions> queueDefaults, Telemetry telemetry,
             Telemetry.Span callSpan) {
        this.producer = producer;
        this.queueDefaults = queueDefaults;
        this.telemetry = telemetry;
        this.callSpan = callSpan;
    }

    static final class Planned {
        FlowJob flow;
        QueueContext ctx;
        String id;
        Planned parent;
        AddFlow.Node spec;
        Map<String, String> fields;
        /** The node's {@code addNode} span, with telemetry. */
        Telemetry.Span span;
        final List<Planned> children = new ArrayList<>();
    }

    void addRoot(FlowJob root) {
        Deque<Planned> queue = new ArrayDeque<>();
        queue.add(plan(root, null));
        checkNoParentBelow(root);
        while (!queue.isEmpty()) {
            Planned p = queue.poll();
            nodes.add(p);
            for (FlowJob c : p.flow.children()) {
                Planned child = plan(c, p);
                p.children.add(child);
                queue.add(child);
            }
        }
    }

    private Planned plan(FlowJob f, Planned parent) {
        Planned p = new Planned();
        p.flow = f;
        p.parent = parent;
        p.ctx = producer.context(f.prefix(), f.queueName());
        JobOptions defaults = queueDefaults.get(f.queueName());
        JobOptions o = defaults == null ? f.options() : f.options().withDefaults(defaults);
        if (o.deduplication() != null) {
            // BullMQ 6.7 refuses deduplication with a parent, and on nodes with children: only a lone root may have it
            ValidationException.check(f.children().isEmpty() && parent == null && f.parent() == null,
                    "deduplication", "can only be used on a flow node without parent and without children (node \""
                    + f.name() + "\" of queue " + f.queueName() + "), as in BullMQ");
        }
        p.id = o.jobId() != null ? o.jobId() : UUID.randomUUID().toString();
        String data = JobAdds.dataJson(p.ctx.mapper, f.data(), o);
        long timestamp = o.timestamp() != null ? o.timestamp().toEpochMilli() : producer.clockMillis();
        JobOptions.checkDue(timestamp, o.delay(), "delay");
        String optsJson;
        String parentKey = null;
        String parentJson = null;
        if (parent != null) {
            optsJson = OptionsCodec.writeChild(o, parent.id, parent.ctx.keys.qualifiedName());
            parentKey = parent.ctx.keys.job(parent.id);
            parentJson = FlowProducer.parentField(parent.id, parent.ctx.keys.qualifiedName(),
                    o.parentPolicy());
        } else if (f.parent() != null) {
            ParentRef ref = f.parent();
            optsJson = OptionsCodec.writeChild(o, ref.id(), ref.queue());
            parentKey = ref.key();
            parentJson = FlowProducer.parentField(ref.id(), ref.queue(), o.parentPolicy());
        } else {
            optsJson = OptionsCodec.write(o);
        }
        if (telemetry != null) {
            // every node stores its own span's context (BullMQ only in nodes given options), so that the attempt
            // that runs it continues the trace
            p.span = Traces.startAddNode(telemetry, parent != null ? parent.span : callSpan, f.queueName(),
                    f.name(), p.id);
            if (p.span != null) {
                nodeSpans.add(p.span);
            }
            optsJson = Traces.withMetadata(optsJson, Traces.metadata(p.span));
        }
        p.spec = new AddFlow.Node(p.ctx.keys, p.id, f.name(), timestamp, data, optsJson, o.delay().toMillis(),
                o.priority(), o.lifo(), parentKey, parentJson, !f.children().isEmpty());
        p.fields = new LinkedHashMap<>();
        p.fields.put("name", f.name());
        p.fields.put("data", data);
        p.fields.put("opts", optsJson);
        p.fields.put("timestamp", Long.toString(timestamp));
        p.fields.put("delay", Long.toString(o.delay().toMillis()));
        p.fields.put("priority", Integer.toString(o.priority()));
        if (parentKey != null) {
            p.fields.put("parentKey", parentKey);
            p.fields.put("parent", parentJson);
        }
        return p;
    }

    /**
     * Ends the node spans started so far, as BullMQ ends them once the nodes are built (before the flow is sent);
     * with the error when planning failed.
     */
    void endNodeSpans(Throwable error) {
        for (Telemetry.Span span : nodeSpans) {
            Traces.end(span, error);
        }
        nodeSpans.clear();
    }

    private static void checkNoParentBelow(FlowJob node) {
        for (FlowJob c : node.children()) {
            ValidationException.check(c.parent() == null, "parent", "only the root of a flow may name an existing "
                    + "parent (node \"" + c.name() + "\" of queue " + c.queueName() + " is a child in the flow)");
            checkNoParentBelow(c);
        }
    }

    /** On Cluster, every key the script touches must be in the slot of its first key. */
    void checkSlots(boolean cluster) {
        if (!cluster) {
            return;
        }
        Integer slot = null;
        String first = null;
        for (Planned p : nodes) {
            QueueKeys k = p.ctx.keys;
            if (k.hashTag() == null || (slot != null && k.slot() != slot)) {
                throw new ValidationException("queueName", "on Redis Cluster all queues of a flow must share "
                        + "one hash slot, but queue \"" + k.qualifiedName() + "\" is "
                        + (k.hashTag() == null ? "without a hash tag" : "in another slot than \"" + first + "\"")
                        + ". Use one hash tag for all the queues of a flow, e.g. the prefix \"{flows}\"");
            }
            slot = k.slot();
            first = k.qualifiedName();
        }
        for (Planned p : nodes) {
            // a parent outside the flow (parent(...)) is written by the same script when its child finishes
            String parentKey = p.spec.parentKey;
            if (parentKey != null && io.bull4j.internal.keys.KeySlot.of(parentKey) != slot) {
                throw new ValidationException("parent", "on Redis Cluster the parent job " + parentKey
                        + " must share the flow's hash slot (that of \"" + first + "\"): give its queue the same "
                        + "hash tag");
            }
        }
    }

    List<AddFlow.Node> specs() {
        List<AddFlow.Node> out = new ArrayList<>(nodes.size());
        for (Planned p : nodes) {
            out.add(p.spec);
        }
        return out;
    }

    RuntimeException refusal(long code, int index) {
        Planned p = nodes.get(index);
        String queue = p.ctx.name();
        switch ((int) code) {
            case -5:
                return new JobException(queue, p.id, JobException.Reason.JOB_NOT_FOUND,
                        "Missing key for parent job " + p.spec.parentKey + ". addFlow; nothing was added");
            case -7:
                return new JobException(queue, p.id, JobException.Reason.PARENT_CONFLICT,
                        "The parent job " + p.spec.parentKey + " cannot be replaced: job " + p.id + " of queue "
                                + queue + " already has another parent. addFlow; nothing was added");
            case -21:
                return new JobException(queue, p.id, JobException.Reason.BAD_DATA, "The key of job " + p.id
                        + " holds another Redis type than a hash. addFlow; nothing was added");
            default:
                return new JobException(queue, p.id, JobException.Reason.OTHER,
                        "Unknown code " + code + ". addFlow; nothing was added");
        }
    }

    List<JobNode> result(List<String> ids, List<Boolean> created) {
        Map<Planned, Job> jobs = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            Planned p = nodes.get(i);
            Map<String, String> fields = p.fields;
            String id = ids.get(i);
            if (!created.get(i)) {
                // an existing job, or the one deduplication kept: read as stored
                Map<String, String> stored;
                try {
                    stored = p.ctx.await(p.ctx.redis().hgetall(p.ctx.keys.job(id)), "addFlow");
                } catch (RedisException e) {
                    // the flow has been added: a failed read must not call it "not applied" (a retry would add it
                    // again under new ids)
                    throw new RedisException("addFlow: applied, but reading back the existing job " + id
                            + " failed: " + e.getMessage(), e, false);
                }
                if (stored != null && !stored.isEmpty()) {
                    fields = stored;
                }
            }
            jobs.put(p, new Job(p.ctx, id, fields, null));
        }
        List<JobNode> roots = new ArrayList<>();
        for (Planned p : nodes) {
            if (p.parent == null) {
                roots.add(tree(p, jobs));
            }
        }
        return roots;
    }

    private static JobNode tree(Planned p, Map<Planned, Job> jobs) {
        List<JobNode> children = new ArrayList<>(p.children.size());
        for (Planned c : p.children) {
            children.add(tree(c, jobs));
        }
        return new JobNode(jobs.get(p), children);
    }
}
