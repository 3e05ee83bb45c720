package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.internal.keys.QueueKeys;

import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/** Modes a-c of the Node side: single adds, addBulk, and processing a prefilled queue with an empty processor. */
final class ThroughputRuns {
    private final Bench b;

    ThroughputRuns(Bench b) {
        this.b = b;
    }

    /** a. {@code n} single adds, awaited one by one ({@code inflight} 1) or with {@code inflight} in flight. */
    Run add(int n, int inflight) throws Exception {
        b.admin.flush();
        try (Bull4jConnection c = b.connect(); Queue queue = b.queue("bench-add", c)) {
            long mem0 = b.admin.usedMemory();
            Measure.Snapshot m = b.measure.begin();
            if (inflight <= 1) {
                for (int i = 0; i < n; i++) {
                    queue.add("bench", b.jobData(i));
                }
            } else {
                Semaphore slots = new Semaphore(inflight);
                AtomicReference<Throwable> failed = new AtomicReference<>();
                for (int i = 0; i < n && failed.get() == null; i++) {
                    slots.acquire();
                    queue.addAsync("bench", b.jobData(i)).whenComplete((j, e) -> {
                        if (e != null) {
                            failed.compareAndSet(null, e);
                        }
                        slots.release();
                    });
                }
                slots.acquire(inflight);
                if (failed.get() != null) {
                    throw new IllegalStateException("add failed", failed.get());
                }
            }
            long tEnd = System.nanoTime();
            Run cost = b.measure.end(m, n, tEnd);
            long mem1 = b.admin.usedMemory();
            long waiting = queue.getJobCounts(JobState.WAITING).get(JobState.WAITING);
            if (waiting != n) {
                throw new IllegalStateException("add: expected " + n + " waiting, got " + waiting);
            }
            return new Run().put("jobs", n).put("jobs_per_s", n / cost.get("wall_s")).putAll(cost)
                    .put("mem_waiting_bytes_per_job", (double) (mem1 - mem0) / n);
        }
    }

    /** b. {@code n} jobs through addBulk, one chunk in flight at a time. */
    Run addBulk(int n) throws Exception {
        b.admin.flush();
        QueueKeys keys = new QueueKeys(QueueKeys.DEFAULT_PREFIX, "bench-bulk");
        try (Bull4jConnection c = b.connect(); Queue queue = b.queue(keys.name(), c)) {
            long mem0 = b.admin.usedMemory();
            Measure.Snapshot m = b.measure.begin();
            b.addBulkAll(queue, n, null);
            long tEnd = System.nanoTime();
            Run cost = b.measure.end(m, n, tEnd);
            long mem1 = b.admin.usedMemory();
            long waiting = queue.getJobCounts(JobState.WAITING).get(JobState.WAITING);
            long ev = b.admin.keyBytes(keys.events());
            long jobHash = b.admin.keyBytes(keys.job("1"));
            if (waiting != n) {
                throw new IllegalStateException("addBulk: expected " + n + " waiting, got " + waiting);
            }
            return new Run().put("jobs", n).put("jobs_per_s", n / cost.get("wall_s")).putAll(cost)
                    .put("mem_waiting_bytes_per_job", (double) (mem1 - mem0) / n)
                    .put("mem_waiting_excl_events_bytes_per_job", (double) (mem1 - mem0 - ev) / n)
                    .put("mem_events_stream_bytes", ev).put("mem_job_hash_bytes", jobHash);
        }
    }

    /** c. Prefills {@code n} jobs, then one worker processes them with an empty processor. */
    Run process(int n, int concurrency, String retention) throws Exception {
        b.admin.flush();
        QueueKeys keys = new QueueKeys(QueueKeys.DEFAULT_PREFIX, "bench-proc");
        boolean remove = retention.equals("remove");
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect();
             Queue queue = b.queue(keys.name(), qc)) {
            long mem0 = b.admin.usedMemory();
            long tp0 = System.nanoTime();
            JobOptions opts = remove ? JobOptions.builder().removeOnComplete(true).build() : null;
            b.addBulkAll(queue, n, i -> opts);
            double prefillS = (System.nanoTime() - tp0) / 1e9;
            long memPrefilled = b.admin.usedMemory();
            long evPrefilled = b.admin.keyBytes(keys.events());
            Completions done = new Completions(n);
            Worker worker = new Worker(keys.name(), job -> null, WorkerOptions.builder().connection(wc)
                    .concurrency(concurrency).autorun(false).metrics(b.cfg.workerMetrics).build(), done);
            if (b.cfg.micrometer) {
                new io.bull4j.micrometer.WorkerMetrics(worker)
                        .bindTo(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
            }
            Run cost;
            double firstMs;
            try {
                Measure.Snapshot m = b.measure.begin();
                worker.run();
                done.await(Completions.timeoutFor(n));
                cost = b.measure.end(m, n, done.tLast());
                firstMs = (done.tFirst() - m.tNanos()) / 1e6;
            } finally {
                worker.close();
            }
            long memDone = b.admin.usedMemory();
            long evDone = b.admin.keyBytes(keys.events());
            long jobHashDone = b.admin.keyBytes(keys.job("1"));
            checkCounts(queue, remove ? 0 : n);
            return new Run().put("jobs", n)
                    .put("jobs_per_s", (n - 1) / ((done.tLast() - done.tFirst()) / 1e9))
                    .put("jobs_per_s_from_start", n / cost.get("wall_s"))
                    .put("first_completion_ms", firstMs)
                    .put("prefill_jobs_per_s", n / prefillS)
                    .putAll(cost)
                    .put("mem_waiting_bytes_per_job", (double) (memPrefilled - mem0) / n)
                    .put("mem_waiting_excl_events_bytes_per_job", (double) (memPrefilled - mem0 - evPrefilled) / n)
                    .put("mem_after_bytes_per_job", (double) (memDone - mem0) / n)
                    .put("mem_after_excl_events_bytes_per_job", (double) (memDone - mem0 - evDone) / n)
                    .put("mem_events_stream_bytes", evDone).put("mem_job_hash_bytes_after", jobHashDone);
        }
    }

    /** Every job done and nothing left over, as the Node side checks after processing. */
    static void checkCounts(Queue queue, long expectCompleted) {
        Map<JobState, Long> counts = queue.getJobCounts(JobState.COMPLETED, JobState.WAITING, JobState.ACTIVE,
                JobState.FAILED);
        if (counts.get(JobState.COMPLETED) != expectCompleted || counts.get(JobState.WAITING) != 0
                || counts.get(JobState.ACTIVE) != 0 || counts.get(JobState.FAILED) != 0) {
            throw new IllegalStateException("process: unexpected counts " + counts);
        }
    }
}
