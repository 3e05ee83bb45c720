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
    /** Per job key planned in this call, the parent key it is first linked to (a job has one parent). */
    private final Map<String, String> linkedParents = new java.util.HashMap<>();
    /** The job keys planned so far in this call. */
    private final java.util.Set<String> plannedKeys = new java.util.HashSet<>();
    /** The keys of the existing jobs the call's roots join as their parent ({@link FlowJob#parent()}). */
    private final java.util.Set<String> outsideParents = new java.util.HashSet<>();

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
        /** The job's key {@code prefix:queue:id}. */
        String key;
        /** The key of the existing job the flow's root joins ({@link FlowJob#parent()}), or null. */
        String outsideParent;
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
        p.key = p.ctx.keys.job(p.id);
        checkShape(p, parentKey);
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

    /**
     * Refuses a flow no job of which could ever run: a job that is its own ancestor (BullMQ stores such a parent
     * waiting for itself), or one job under two parents in one call (it reports to one only, and the other would
     * wait for it forever). One job repeated under one parent, or as a root and as a child, is one job.
     */
    private void checkShape(Planned p, String parentKey) {
        p.outsideParent = p.parent != null ? p.parent.outsideParent
                : p.flow.parent() != null ? p.flow.parent().key() : null;
        if (p.key.equals(p.outsideParent)) {
            throw cycle(p);
        }
        // a job planned before in this call, or the existing parent a root of it joins, may be an ancestor
        boolean seen = !plannedKeys.add(p.key) | outsideParents.contains(p.key);
        if (seen) {
            // planned before in this call: it may be one of this node's ancestors, in this flow or, through the
            // links the call's other flows make, in another (A over B in one flow of an addBulk, B over A in the
            // next); each job has one parent (checked below), so its ancestors are one chain of links
            for (String a = parentKey; a != null; a = linkedParents.get(a)) {
                if (a.equals(p.key)) {
                    throw cycle(p);
                }
            }
        }
        if (parentKey == null) {
            return;
        }
        if (p.parent == null) {
            outsideParents.add(parentKey);
        }
        String other = linkedParents.putIfAbsent(p.key, parentKey);
        if (other != null && !other.equals(parentKey)) {
            throw new ValidationException("jobId", "job " + p.key + " (node \"" + p.flow.name() + "\") is under two "
                    + "parents in this add, " + other + " and " + parentKey + ": a job has one parent, and the "
                    + "other would wait for it forever");
        }
    }

    private static ValidationException cycle(Planned p) {
        return new ValidationException("jobId", "job " + p.key + " (node \"" + p.flow.name() + "\") is its own "
                + "ancestor in the flow: a flow cannot hold a cycle, the job would wait for itself forever");
    }

    private static void checkNoParentBelow(FlowJob root) {
        // iterative: a flow may be deeper than the thread's stack allows recursion
        Deque<FlowJob> todo = new ArrayDeque<>(root.children());
        while (!todo.isEmpty()) {
            FlowJob c = todo.poll();
            ValidationException.check(c.parent() == null, "parent", "only the root of a flow may name an existing "
                    + "parent (node \"" + c.name() + "\" of queue " + c.queueName() + " is a child in the flow)");
            todo.addAll(c.children());
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
        // built from the last node back (children come after their parents), so without recursion: a flow may be
        // deeper than the thread's stack allows
        Map<Planned, JobNode> built = new java.util.HashMap<>();
        for (int i = nodes.size() - 1; i >= 0; i--) {
            Planned p = nodes.get(i);
            List<JobNode> children = new ArrayList<>(p.children.size());
            for (Planned c : p.children) {
                children.add(built.remove(c));
            }
            built.put(p, new JobNode(jobs.get(p), children));
        }
        List<JobNode> roots = new ArrayList<>();
        for (Planned p : nodes) {
            if (p.parent == null) {
                roots.add(built.get(p));
            }
        }
        return roots;
    }
}
