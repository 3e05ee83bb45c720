package io.bull4j;

import io.bull4j.internal.script.GetCounts;
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
import java.util.regex.Pattern;

/**
 * The observability half of {@link Queue}: finished-job metrics, the Prometheus text, the workers connected, job
 * logs, the events stream's trim and the meta hash, on BullMQ 6.7.0's keys. Stateless.
 */
final class QueueInsights {
    /** A Prometheus label name. */
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

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
        QueueReads.Logs l = ctx.await(QueueReads.logs(ctx.scripts(), ctx.keys, jobId, exact(start), exact(end),
                asc), "getJobLogs");
        return new JobLogs(l.lines(), l.count());
    }

    /**
     * A position the script's numbers hold exactly (a double past 2^53 would reach LRANGE as "1e+17"); no list is
     * that long, so the page is the same.
     */
    private static long exact(long position) {
        long max = (1L << 53) - 1;
        return Math.max(-max, Math.min(max, position));
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

    /**
     * BullMQ's Prometheus text: the job count of each state (getJobCounts' states, in its order), then the
     * completed and failed totals of the metrics hashes, lines joined by a newline with none at the end. The three
     * reads are sent together.
     */
    String prometheus(Map<String, String> labels) {
        StringBuilder extra = new StringBuilder();
        if (labels != null) {
            labels.forEach((k, v) -> {
                ValidationException.check(k != null && LABEL_NAME.matcher(k).matches(), "labels",
                        "names must be Prometheus label names (was " + k + ")");
                // a second queue or state label, or a reserved name, would make Prometheus refuse the scrape
                ValidationException.check(!k.equals("queue") && !k.equals("state") && !k.startsWith("__"),
                        "labels", "queue and state are set by the export, and __ names are reserved (was " + k + ")");
                ValidationException.check(v != null, "labels", "value of " + k + " must not be null");
                extra.append(", ").append(k).append("=\"").append(escape(v)).append('"');
            });
        }
        CompletableFuture<List<Long>> counts = GetCounts.run(ctx.scripts(), ctx.keys);
        CompletableFuture<GetMetrics.Raw> completed = GetMetrics.run(ctx.scripts(), ctx.keys, "completed", 0, 0);
        CompletableFuture<GetMetrics.Raw> failed = GetMetrics.run(ctx.scripts(), ctx.keys, "failed", 0, 0);
        List<Long> all = ctx.await(counts, "exportPrometheusMetrics");
        String completedTotal = Long.toString(number(ctx.await(completed, "exportPrometheusMetrics").count()));
        String failedTotal = Long.toString(number(ctx.await(failed, "exportPrometheusMetrics").count()));

        String queue = "queue=\"" + escape(ctx.name()) + "\"";
        List<String> lines = new ArrayList<>();
        lines.add("# HELP bullmq_job_count Number of jobs in the queue by state");
        lines.add("# TYPE bullmq_job_count gauge");
        for (JobState state : QueueAdmin.ALL_STATES) {
            String key = state == JobState.WAITING ? "wait" : state.wireName();
            lines.add("bullmq_job_count{" + queue + ", state=\"" + state.wireName() + "\"" + extra + "} "
                    + all.get(GetCounts.STATES.indexOf(key)));
        }
        lines.add("# HELP bullmq_job_completed_total Total number of completed jobs");
        lines.add("# TYPE bullmq_job_completed_total counter");
        lines.add("bullmq_job_completed_total{" + queue + extra + "} " + completedTotal);
        lines.add("# HELP bullmq_job_failed_total Total number of failed jobs");
        lines.add("# TYPE bullmq_job_failed_total counter");
        lines.add("bullmq_job_failed_total{" + queue + extra + "} " + failedTotal);
        return String.join("\n", lines);
    }

    /** A label value as the exposition format escapes it (and as BullMQ does): backslash, double quote, newline. */
    static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
