package io.bull4j;

import com.fasterxml.jackson.databind.JavaType;
import io.bull4j.internal.codec.Json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads of a parent's children: its {@code :processed} hash (completed children's return values), its
 * {@code :dependencies} set (pending), its {@code :failed} hash (ignored failures) and its {@code :unsuccessful}
 * sorted set (failures that failed it), and whole flow trees for {@link FlowProducer#getFlow}.
 */
final class FlowReader {
    private FlowReader() {
    }

    static JobDependencies dependencies(QueueContext ctx, String id, int limit) {
        String key = ctx.keys.job(id);
        var redis = ctx.redis();
        var processed = redis.hgetall(key + ":processed");
        var pending = redis.smembers(key + ":dependencies");
        var ignored = redis.hgetall(key + ":failed");
        var failed = redis.zrange(key + ":unsuccessful", 0, limit < 0 ? -1 : limit - 1);
        return new JobDependencies(first(ctx.await(processed, "getDependencies"), limit),
                first(ctx.await(pending, "getDependencies"), limit), first(ctx.await(ignored, "getDependencies"), limit),
                new ArrayList<>(ctx.await(failed, "getDependencies")));
    }

    static JobDependencies.Counts counts(QueueContext ctx, String id) {
        String key = ctx.keys.job(id);
        var redis = ctx.redis();
        var processed = redis.hlen(key + ":processed");
        var pending = redis.scard(key + ":dependencies");
        var ignored = redis.hlen(key + ":failed");
        var failed = redis.zcard(key + ":unsuccessful");
        return new JobDependencies.Counts(ctx.await(processed, "getDependenciesCount"),
                ctx.await(pending, "getDependenciesCount"), ctx.await(ignored, "getDependenciesCount"),
                ctx.await(failed, "getDependenciesCount"));
    }

    /** The completed children's return values read as {@code type}, by child key. */
    static <T> Map<String, T> childrenValues(QueueContext ctx, String id, JavaType type) {
        Map<String, String> raw = ctx.await(ctx.redis().hgetall(ctx.keys.job(id) + ":processed"), "getChildrenValues");
        Map<String, T> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : raw.entrySet()) {
            try {
                out.put(e.getKey(), Json.read(ctx.mapper, e.getValue(), type));
            } catch (Bull4jException x) {
                throw new JobException(ctx.name(), id, JobException.Reason.BAD_DATA, "job " + id + " of queue "
                        + ctx.name() + ": the value of child " + e.getKey() + " " + x.getMessage(), x);
            }
        }
        return out;
    }

    static Map<String, String> ignoredFailures(QueueContext ctx, String id) {
        return ctx.await(ctx.redis().hgetall(ctx.keys.job(id) + ":failed"), "getIgnoredChildrenFailures");
    }

    /** The job and its children down to {@code depth} levels; null when the job does not exist. */
    static JobNode node(QueueContext ctx, String id, int depth, int maxChildren,
                        Function<String, QueueContext> contextOfKey) {
        Map<String, String> fields = ctx.await(ctx.redis().hgetall(ctx.keys.job(id)), "getFlow");
        if (fields == null || fields.isEmpty()) {
            return null;
        }
        Job job = new Job(ctx, id, fields, null);
        List<JobNode> children = new ArrayList<>();
        if (depth > 1) {
            JobDependencies d = dependencies(ctx, id, maxChildren);
            List<String> keys = new ArrayList<>(d.processed().keySet());
            keys.addAll(d.unprocessed());
            keys.addAll(d.failed());
            keys.addAll(d.ignored().keySet());
            for (String childKey : keys) {
                QueueContext c = contextOfKey.apply(childKey);
                if (c == null) {
                    continue;
                }
                JobNode child = node(c, childKey.substring(c.keys.base().length()), depth - 1, maxChildren,
                        contextOfKey);
                if (child != null) {
                    children.add(child);
                }
            }
        }
        return new JobNode(job, children);
    }

    private static <V> Map<String, V> first(Map<String, V> m, int limit) {
        if (limit < 0 || m.size() <= limit) {
            return new LinkedHashMap<>(m);
        }
        Map<String, V> out = new LinkedHashMap<>();
        for (Map.Entry<String, V> e : m.entrySet()) {
            if (out.size() == limit) {
                break;
            }
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    private static List<String> first(Set<String> s, int limit) {
        List<String> out = new ArrayList<>();
        for (String v : s) {
            if (limit >= 0 && out.size() == limit) {
                break;
            }
            out.add(v);
        }
        return out;
    }
}
