package io.bull4j;

import io.bull4j.internal.codec.Json;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.script.AddJob;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link Queue#add} and {@link Queue#addBulk} do: validate and encode each job (nothing is written when one
 * is invalid), send it by the addJob script (a bulk in chunks of {@value #BULK_CHUNK}, one after the other), and
 * make the {@link Job}s of the answers; with telemetry, inside an add span whose context is stored with the job.
 */
final class JobAdds {
    /**
     * Jobs per Redis call in {@link Queue#addBulk(List)}: about 0.3 ms of Redis's time, the longest a bulk makes
     * other clients' commands wait (issue 15: workers' fetches during a 10,000-job bulk).
     */
    static final int BULK_CHUNK = 25;
    /** A bulk may take the command timeout per this many jobs. */
    static final int BUDGET_JOBS = 200;

    private final QueueContext ctx;
    private final QueueOptions opts;
    /** The queue's default options, encoded once: every add that gives no options writes them. */
    private final String defaultOptsJson;

    JobAdds(QueueContext ctx, QueueOptions opts) {
        this.ctx = ctx;
        this.opts = opts;
        this.defaultOptsJson = OptionsCodec.write(opts.defaultJobOptions());
    }

    /** The job as added; validation errors are thrown at once. */
    CompletableFuture<Job> add(String name, Object data, JobOptions options) {
        Telemetry telemetry = opts.telemetry();
        if (telemetry == null) {
            return send(prepare(name, data, options, null));
        }
        Telemetry.Span span = Traces.startAdd(telemetry, ctx.name(), name);
        CompletableFuture<Job> added;
        try {
            added = send(prepare(name, data, options, Traces.metadata(span)));
        } catch (RuntimeException e) {
            Traces.endAdd(span, name, null, e);
            throw e;
        }
        return Traces.endingWith(added, (job, error) -> Traces.endAdd(span, name, job == null ? null : job.id(),
                error));
    }

    private CompletableFuture<Job> send(Prepared p) {
        return Await.within(AddJob.run(ctx.scripts(), ctx.keys, List.of(p.spec)).thenCompose(r -> toJob(p, r.get(0))),
                ctx.link.commandTimeout(), "add");
    }

    /** The bound of a bulk: the command timeout per {@value #BUDGET_JOBS} jobs (and one more). */
    Duration bulkBudget(List<BulkJob> jobs) {
        return ctx.link.commandTimeout().multipliedBy(1 + (jobs == null ? 0 : jobs.size() / BUDGET_JOBS));
    }

    /** The jobs as added, in order; all are validated before any is sent. */
    CompletableFuture<List<Job>> addBulk(List<BulkJob> jobs) {
        ValidationException.check(jobs != null, "jobs", "must not be null");
        Telemetry telemetry = opts.telemetry();
        if (telemetry == null) {
            return sendBulk(jobs, null);
        }
        List<String> names = new ArrayList<>(jobs.size());
        jobs.forEach(j -> names.add(j == null ? null : j.name()));
        Telemetry.Span span = Traces.startAddBulk(telemetry, ctx.name(), names);
        CompletableFuture<List<Job>> added;
        try {
            added = sendBulk(jobs, Traces.metadata(span));
        } catch (RuntimeException e) {
            Traces.end(span, e);
            throw e;
        }
        return Traces.endingWith(added, (done, error) -> Traces.end(span, error));
    }

    private CompletableFuture<List<Job>> sendBulk(List<BulkJob> jobs, String traceMetadata) {
        List<Prepared> prepared = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            BulkJob j = jobs.get(i);
            ValidationException.check(j != null, "jobs[" + i + "]", "must not be null");
            prepared.add(prepare(j.name(), j.data(), j.options(), traceMetadata));
        }
        Duration budget = bulkBudget(jobs);
        BulkSend send = new BulkSend(prepared, budget);
        send.start();
        CompletableFuture<List<Job>> all = CompletableFuture.allOf(send.chunks.toArray(new CompletableFuture[0]))
                .handle((v, error) -> {
                    if (error != null) {
                        throw bulkFailure(send.chunks);
                    }
                    List<Job> added = new ArrayList<>(prepared.size());
                    send.chunks.forEach(c -> added.addAll(c.join()));
                    return added;
                });
        return Await.within(all, budget, "addBulk");
    }

    /**
     * A bulk's chunks, sent one at a time, in order: each answer sends the next chunk. A bulk's scripts then never
     * queue in Redis ahead of other clients' commands for more than about one chunk's run (a worker's fetch waits
     * behind at most that, not behind the whole bulk), at the cost of a round trip per chunk (two in flight let
     * the workers fall behind again: benchmarks.md, 2026-12-03). After a chunk fails, or once the bulk's bound has passed, the chunks not yet sent are not
     * sent (they fail as not applied), so nothing of a bulk is added after its caller was told it failed.
     */
    private final class BulkSend {
        final List<CompletableFuture<List<Job>>> chunks = new ArrayList<>();
        private final List<List<Prepared>> parts = new ArrayList<>();
        private final long deadlineNanos;
        private int next;
        private boolean failed;

        BulkSend(List<Prepared> prepared, Duration budget) {
            for (int from = 0; from < prepared.size(); from += BULK_CHUNK) {
                parts.add(prepared.subList(from, Math.min(prepared.size(), from + BULK_CHUNK)));
                chunks.add(new CompletableFuture<>());
            }
            this.deadlineNanos = System.nanoTime() + budget.toNanos();
        }

        void start() {
            sendNext();
        }

        private void sendNext() {
            int i;
            boolean skip;
            synchronized (this) {
                if (next >= parts.size()) {
                    return;
                }
                i = next++;
                skip = failed;
            }
            long left = deadlineNanos - System.nanoTime();
            if (skip || left <= 0) {
                notSent(i);
                return;
            }
            CompletableFuture<List<Job>> sent;
            try {
                sent = sendChunk(parts.get(i), Duration.ofNanos(left));
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            sent.whenComplete((added, error) -> {
                if (error != null) {
                    synchronized (this) {
                        failed = true;
                    }
                    chunks.get(i).completeExceptionally(error);
                } else {
                    chunks.get(i).complete(added);
                }
                sendNext();
            });
        }

        /** Fails chunk i and every chunk after it as never sent. */
        private void notSent(int i) {
            synchronized (this) {
                next = parts.size();
            }
            for (int j = i; j < parts.size(); j++) {
                chunks.get(j).completeExceptionally(new RedisNotAppliedException("addBulk: jobs " + j * BULK_CHUNK
                        + " and after not sent: an earlier chunk failed or the bulk's bound passed", null));
            }
        }
    }

    private CompletableFuture<List<Job>> sendChunk(List<Prepared> chunk, Duration budget) {
        List<AddJob.Spec> specs = new ArrayList<>(chunk.size());
        chunk.forEach(p -> specs.add(p.spec));
        return AddJob.run(ctx.scripts(), budget, ctx.keys, specs).thenCompose(results -> {
            List<CompletableFuture<Job>> made = new ArrayList<>(results.size());
            for (int i = 0; i < results.size(); i++) {
                made.add(toJob(chunk.get(i), results.get(i)));
            }
            return CompletableFuture.allOf(made.toArray(new CompletableFuture[0]))
                    .thenApply(v -> made.stream().map(CompletableFuture::join).toList());
        });
    }

    /**
     * Not applied only when no chunk was: a bulk is several scripts, so one chunk's refusal says nothing of the
     * others.
     */
    private static RuntimeException bulkFailure(List<CompletableFuture<List<Job>>> chunks) {
        RuntimeException first = null;
        boolean allNotApplied = true;
        for (CompletableFuture<List<Job>> c : chunks) {
            if (!c.isCompletedExceptionally()) {
                allNotApplied = false;
                continue;
            }
            RuntimeException e = Await.translate(c.handle((v, t) -> t).join(), "addBulk");
            first = first == null ? e : first;
            allNotApplied &= e instanceof RedisNotAppliedException;
        }
        if (allNotApplied || chunks.size() == 1) {
            return first;
        }
        return new RedisOutcomeUnknownException("addBulk: some chunks of " + BULK_CHUNK + " jobs may have been added: "
                + first.getMessage(), first, first instanceof RedisException && ((RedisException) first).isTimeout());
    }

    /** A validated job, ready to send. */
    private static final class Prepared {
        AddJob.Spec spec;
        Map<String, String> fields;
    }

    /** Validates and encodes a job; {@code traceMetadata} (or null) is the add span's context, stored as BullMQ does.
     */
    private Prepared prepare(String name, Object data, JobOptions options, String traceMetadata) {
        ValidationException.check(name != null, "name", "must not be null");
        JobOptions o = options == null ? opts.defaultJobOptions() : options.withDefaults(opts.defaultJobOptions());
        String json = dataJson(ctx.mapper, data, o);
        long timestamp = o.timestamp() != null ? o.timestamp().toEpochMilli() : ctx.now();
        JobOptions.checkDue(timestamp, o.delay(), "delay");
        // the queue's defaults are written the same way for every add that gives no options: encode them once
        String optsJson = options == null ? defaultOptsJson : OptionsCodec.write(o);
        if (traceMetadata != null) {
            optsJson = Traces.withMetadata(optsJson, traceMetadata);
        }
        Prepared p = new Prepared();
        p.spec = new AddJob.Spec(o.jobId(), name, timestamp, json, optsJson, o.delay().toMillis(), o.priority(),
                o.lifo());
        p.fields = new LinkedHashMap<>();
        p.fields.put("name", name);
        p.fields.put("data", json);
        p.fields.put("opts", optsJson);
        p.fields.put("timestamp", Long.toString(timestamp));
        p.fields.put("delay", Long.toString(o.delay().toMillis()));
        p.fields.put("priority", Integer.toString(o.priority()));
        return p;
    }

    /**
     * A job's data as stored: its JSON ({@code {}} for null, as BullMQ stores an undefined), within the options'
     * {@code sizeLimit}. Shared with the nodes of flows ({@link FlowPlan}).
     */
    static String dataJson(com.fasterxml.jackson.databind.ObjectMapper mapper, Object data, JobOptions o) {
        String json = Json.write(mapper, data == null ? Map.of() : data, "data");
        if (o.sizeLimit() != null) {
            int size = json.getBytes(StandardCharsets.UTF_8).length;
            ValidationException.check(size <= o.sizeLimit(), "data",
                    "is " + size + " bytes of JSON, over the sizeLimit of " + o.sizeLimit());
        }
        return json;
    }

    private CompletableFuture<Job> toJob(Prepared p, AddJob.Result r) {
        if (r.created) {
            return CompletableFuture.completedFuture(new Job(ctx, r.id, p.fields, null));
        }
        // the add has been applied (a no-op: the job was there); a failed read of it must not say otherwise, or a
        // caller retrying a "not applied" bulk would add the others again
        return Await.within(ctx.redis().hgetall(ctx.keys.job(r.id)), ctx.link.commandTimeout(), "add")
                .handle((fields, t) -> {
                    if (t == null) {
                        return new Job(ctx, r.id, fields, null);
                    }
                    throw new RedisException("add: applied (job " + r.id + " already existed), but reading that job "
                            + "back failed: " + Await.translate(t, "HGETALL").getMessage(), t, false);
                });
    }
}
