package io.bull4j;

import com.fasterxml.jackson.databind.JavaType;
import io.bull4j.internal.codec.Json;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.script.GetDependencies;

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
        var failed = redis.zrange(key + ":unsuccessful", 0, limit < 0 ? -1 : limit - 1);
        if (limit >= 0) {
            // a tree's level: one page of each, as BullMQ's getNode scans them, not every child of a big parent
            io.lettuce.core.ScanArgs page = io.lettuce.core.ScanArgs.Builder.limit(Math.max(1, limit));
            var processed = redis.hscan(key + ":processed", page);
            var pending = redis.sscan(key + ":dependencies", page);
            var ignored = redis.hscan(key + ":failed", page);
            return new JobDependencies(first(ctx.await(processed, "getDependencies").getMap(), limit),
                    first(new java.util.LinkedHashSet<>(ctx.await(pending, "getDependencies").getValues()), limit),
                    first(ctx.await(ignored, "getDependencies").getMap(), limit),
                    new ArrayList<>(ctx.await(failed, "getDependencies")));
        }
        var processed = redis.hgetall(key + ":processed");
        var pending = redis.smembers(key + ":dependencies");
        var ignored = redis.hgetall(key + ":failed");
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

    /**
     * Positions {@code start..end} ({@code -1}: to the last) of a parent's pending or processed children, in scan
     * order, with their jobs, as BullMQ's {@code queue.getDependencies} pages them: calls of a few scans each until
     * the page is full or the scan went round.
     */
    static JobDependencies.Page page(QueueContext ctx, String parentId, JobDependencies.Kind kind, long start,
                                     long end) {
        ValidationException.check(parentId != null, "parentId", "must not be null");
        ValidationException.check(kind != null, "kind", "must not be null");
        ValidationException.check(start >= 0, "start", "must be 0 or more (was " + start + ")");
        ValidationException.check(end >= -1, "end", "must be -1 (to the last) or more (was " + end + ")");
        String parentKey = ctx.keys.job(parentId);
        String key = parentKey + (kind == JobDependencies.Kind.PROCESSED ? ":processed" : ":dependencies");
        long pageSize = end >= 0 ? end - start + 1 : Long.MAX_VALUE;
        List<JobDependencies.Item> items = new ArrayList<>();
        String cursor = "0";
        long position = 0;
        long total;
        do {
            GetDependencies.Chunk c = ctx.await(GetDependencies.run(ctx.scripts(), key, start + items.size(), end,
                    cursor, position), "getDependencies");
            for (int i = 0; i < c.keys().size(); i++) {
                String childKey = c.keys().get(i);
                items.add(new JobDependencies.Item(childKey, c.values().get(i), job(ctx, childKey, c.jobs().get(i))));
            }
            cursor = c.cursor();
            position = c.position();
            total = c.total();
        } while (!"0".equals(cursor) && items.size() < pageSize);
        return new JobDependencies.Page(items, total);
    }

    /** The child job of key {@code P:Q:id} from its fields; null when gone or the key is not a job key. */
    private static Job job(QueueContext ctx, String childKey, Map<String, String> fields) {
        if (fields.isEmpty()) {
            return null;
        }
        if (childKey.startsWith(ctx.keys.base())) {
            return new Job(ctx, childKey.substring(ctx.keys.base().length()), fields, null);
        }
        int first = childKey.indexOf(':');
        int second = first < 0 ? -1 : childKey.indexOf(':', first + 1);
        if (second < 0) {
            return null;
        }
        QueueContext other = new QueueContext(new QueueKeys(childKey.substring(0, first),
                childKey.substring(first + 1, second)), ctx.link, ctx.mapper, ctx.clock);
        return new Job(other, childKey.substring(second + 1), fields, null);
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
