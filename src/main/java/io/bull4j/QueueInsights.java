package io.bull4j;

import io.bull4j.internal.script.GetMetrics;
import io.bull4j.internal.script.QueueReads;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The observability half of {@link Queue}: finished-job metrics, the Prometheus text, the workers connected, job
 * logs, the events stream's trim and the meta hash, on BullMQ 6.7.0's keys. Stateless.
 */
final class QueueInsights {
    private final QueueContext ctx;

    QueueInsights(QueueContext ctx) {
        this.ctx = ctx;
    }

    static String metricsType(JobState type) {
        ValidationException.check(type == JobState.COMPLETED || type == JobState.FAILED, "type",
                "must be COMPLETED or FAILED (was " + type + ")");
        return type.wireName();
    }

    JobMetrics metrics(JobState type, long start, long end) {
        String t = metricsType(type);
        GetMetrics.Raw raw = ctx.await(GetMetrics.run(ctx.scripts(), ctx.keys, t, start, end), "getMetrics");
        List<Long> data = new ArrayList<>(raw.page().size());
        raw.page().forEach(p -> data.add(number(p)));
        long prevTs = number(raw.prevTs());
        return new JobMetrics(number(raw.count()), raw.prevTs() == null ? null : Instant.ofEpochMilli(prevTs),
                number(raw.prevCount()), data, raw.length());
    }

    /** A stored number as BullMQ reads it: absent or not a number reads as 0. */
    static long number(String v) {
        if (v == null || v.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            try {
                double d = Double.parseDouble(v);
                return Double.isFinite(d) ? (long) d : 0;
            } catch (NumberFormatException e2) {
                return 0;
            }
        }
    }

    /**
     * The client name BullMQ gives a worker's blocking connection on this queue, {@code <prefix>:<base64(name)>},
     * followed by {@code :w:<workerName>} for a named worker (FetchLoop names bull4j's the same way).
     */
    String workerClientName() {
        return ctx.keys.prefix() + ":"
                + Base64.getEncoder().encodeToString(ctx.name().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The connections of CLIENT LIST named as a worker of this queue, by BullMQ's rule; on a Cluster, the node's
     * list with the most of them, as BullMQ picks it.
     */
    List<Map<String, String>> workers() {
        String unnamed = workerClientName();
        String named = unnamed + ":w:";
        List<Map<String, String>> best = new ArrayList<>();
        for (String list : clientLists()) {
            List<Map<String, String>> found = new ArrayList<>();
            for (String line : list.split("\\r?\\n")) {
                Map<String, String> client = new LinkedHashMap<>();
                for (String pair : line.split(" ")) {
                    int eq = pair.indexOf('=');
                    if (eq > 0) {
                        client.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                }
                String name = client.get("name");
                if (name != null && (name.equals(unnamed) || name.startsWith(named))) {
                    client.put("rawname", name);
                    client.put("name", ctx.name()); // as BullMQ reports it: the queue's name
                    found.add(Map.copyOf(client));
                }
            }
            if (found.size() > best.size()) {
                best = found;
            }
        }
        return List.copyOf(best);
    }

    private List<String> clientLists() {
        RedisClusterAsyncCommands<String, String> redis = ctx.redis();
        if (ctx.link.isCluster() && redis instanceof RedisAdvancedClusterAsyncCommands<String, String> cluster) {
            List<String> lists = new ArrayList<>();
            for (CompletableFuture<String> f : cluster.upstream().commands().clientList().futures()) {
                lists.add(ctx.await(f, "getWorkers"));
            }
            return lists;
        }
        return List.of(ctx.await(redis.clientList(), "getWorkers"));
    }

    JobLogs logs(String jobId, long start, long end, boolean asc) {
        ValidationException.check(jobId != null && !jobId.isEmpty(), "id", "must not be empty");
        QueueReads.Logs l = ctx.await(QueueReads.logs(ctx.scripts(), ctx.keys, jobId, start, end, asc),
                "getJobLogs");
        return new JobLogs(l.lines(), l.count());
    }

    long trimEvents(long maxLength) {
        ValidationException.check(maxLength >= 0, "maxLength", "must be >= 0 (was " + maxLength + ")");
        return ctx.await(ctx.redis().xtrim(ctx.keys.events(), true, maxLength), "trimEvents");
    }

    QueueMeta meta() {
        Map<String, String> f = ctx.await(ctx.redis().hgetall(ctx.keys.meta()), "getMeta");
        String concurrency = f.get("concurrency");
        String maxLen = f.get("opts.maxLenEvents");
        String max = f.get("max");
        String duration = f.get("duration");
        // read as BullMQ reads them: an empty or absent field is unset
        return new QueueMeta("1".equals(f.get("paused")),
                present(concurrency) ? (int) number(concurrency) : null,
                present(maxLen) ? number(maxLen) : null, present(max) ? number(max) : null,
                present(duration) ? Duration.ofMillis(number(duration)) : null, f.get("version"), f);
    }

    String version() {
        return ctx.await(ctx.redis().hget(ctx.keys.meta(), "version"), "getVersion");
    }

    Map<Integer, Long> countsPerPriority(int... priorities) {
        ValidationException.check(priorities != null && priorities.length > 0, "priorities",
                "must name at least one priority");
        LinkedHashSet<Integer> unique = new LinkedHashSet<>();
        for (int p : priorities) {
            ValidationException.check(p >= 0 && p <= JobOptions.MAX_PRIORITY, "priorities",
                    "must be 0.." + JobOptions.MAX_PRIORITY + " (was " + p + ")");
            unique.add(p);
        }
        List<Integer> asked = new ArrayList<>(unique);
        List<Long> counts = ctx.await(QueueReads.countsPerPriority(ctx.scripts(), ctx.keys, asked),
                "getCountsPerPriority");
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < asked.size(); i++) {
            out.put(asked.get(i), counts.get(i));
        }
        return out;
    }

    private static boolean present(String v) {
        return v != null && !v.isEmpty();
    }
}
