package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One point of the queue-depth sweep. With {@code depth} jobs already waiting: add {@code nAdd} more (100 in
 * flight), then let one worker process {@code nProcess} jobs from the head of the queue while probe jobs are added
 * one at a time with {@code lifo}, so that each goes in front of the backlog: their add-to-start and
 * add-to-completed times are the latency a new urgent job sees on a queue that deep and busy (a FIFO job would
 * wait for the whole backlog). At depth 0 the backlog is only the {@code nAdd} jobs just added.
 */
final class DepthRun {
    private static final String PROBE = "probe";
    private final Bench b;

    DepthRun(Bench b) {
        this.b = b;
    }

    Run run(int depth, int nAdd, int nProcess, int probes, int concurrency) throws Exception {
        b.admin.flush();
        String name = "bench-depth";
        try (Bull4jConnection qc = b.connect(); Bull4jConnection wc = b.connect(); Queue queue = b.queue(name, qc)) {
            Run r = new Run().put("depth", depth);
            long mem0 = b.admin.usedMemory();
            long tp = System.nanoTime();
            b.addBulkAll(queue, depth, null);
            r.put("prefill_jobs_per_s", depth == 0 ? Double.NaN : depth / ((System.nanoTime() - tp) / 1e9));
            long memDepth = b.admin.usedMemory();
            r.put("redis_used_memory_mb", memDepth / 1048576.0)
                    .put("mem_waiting_bytes_per_job", depth == 0 ? Double.NaN : (double) (memDepth - mem0) / depth)
                    .put("jvm_heap_depth_mb", JvmStats.heapAfterGcMb());

            // add phase: nAdd single adds, 100 in flight, each call timed
            double[] addLat = new double[nAdd];
            Semaphore slots = new Semaphore(b.cfg.addInflight);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Measure.Snapshot m = b.measure.begin();
            for (int i = 0; i < nAdd && failed.get() == null; i++) {
                slots.acquire();
                int k = i;
                double t0 = LatencyRuns.nowMs();
                queue.addAsync("bench", b.jobData(depth + i)).whenComplete((j, e) -> {
                    addLat[k] = LatencyRuns.nowMs() - t0;
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                    slots.release();
                });
            }
            slots.acquire(b.cfg.addInflight);
            if (failed.get() != null) {
                throw new IllegalStateException("add failed", failed.get());
            }
            Run add = b.measure.end(m, nAdd, System.nanoTime());
            r.put("add_jobs_per_s", nAdd / add.get("wall_s"))
                    .put("add_node_cpu_us_per_job", add.get("node_cpu_us_per_job"))
                    .put("add_redis_cpu_us_per_job", add.get("redis_cpu_us_per_job"));
            Map<String, Double> addDist = Stats.dist(addLat, "add_call");
            r.put("add_call_p50_ms", addDist.get("add_call_p50_ms")).put("add_call_p99_ms", addDist.get("add_call_p99_ms"));

            // process phase with LIFO probes
            int toProcess = Math.min(nProcess, depth + nAdd);
            Backlog backlog = new Backlog(toProcess);
            double[] probeStart = new double[probes];
            Worker worker = new Worker(name, job -> {
                if (job.name().equals(PROBE)) {
                    backlog.started(LatencyRuns.index(job), LatencyRuns.nowMs());
                }
                return null;
            }, WorkerOptions.builder().connection(wc).concurrency(concurrency).autorun(false).build(), backlog);
            try {
                long[] gc0 = JvmStats.gc();
                Measure.Snapshot p = b.measure.begin();
                worker.run();
                double[] probeDone = new double[probes];
                int sent = 0;
                JobOptions lifo = JobOptions.builder().lifo(true).build();
                for (; sent < probes && !backlog.isDone(); sent++) {
                    CompletableFuture<double[]> f = backlog.expect(sent);
                    double t0 = LatencyRuns.nowMs();
                    queue.add(PROBE, Map.of("i", sent), lifo);
                    double[] startAndEnd = f.get(30, TimeUnit.SECONDS);
                    probeStart[sent] = startAndEnd[0] - t0;
                    probeDone[sent] = startAndEnd[1] - t0;
                }
                backlog.await(Completions.timeoutFor(toProcess));
                Run cost = b.measure.end(p, toProcess + sent, backlog.tLast);
                JvmStats.putGcSince(cost, gc0);
                worker.pause();
                r.put("jobs", toProcess)
                        .put("jobs_per_s", (toProcess - 1) / ((backlog.tLast - backlog.tFirst) / 1e9))
                        .putAll(cost).put("probes", sent);
                Stats.dist(Arrays.copyOf(probeStart, sent), "probe_start").forEach(r::put);
                Stats.dist(Arrays.copyOf(probeDone, sent), "probe_completed").forEach(r::put);
                r.put("jvm_heap_after_mb", JvmStats.heapAfterGcMb());
            } finally {
                worker.close();
            }
            return r;
        }
    }

    /** Counts the backlog jobs a worker completes and hands probe timings to the waiting probe loop. */
    private static final class Backlog implements WorkerListener {
        private final int expected;
        private final AtomicInteger done = new AtomicInteger();
        private final CountDownLatch all = new CountDownLatch(1);
        private volatile CompletableFuture<double[]> probe;
        private volatile int probeIndex = -1;
        private volatile double probeStarted;
        volatile long tFirst;
        volatile long tLast;

        Backlog(int expected) {
            this.expected = expected;
        }

        CompletableFuture<double[]> expect(int i) {
            CompletableFuture<double[]> f = new CompletableFuture<>();
            probe = f;
            probeIndex = i;
            return f;
        }

        void started(int i, double atMs) {
            if (i == probeIndex) {
                probeStarted = atMs;
            }
        }

        boolean isDone() {
            return all.getCount() == 0;
        }

        @Override
        public void onCompleted(Job job, Object result) {
            long now = System.nanoTime();
            if (job.name().equals(PROBE)) {
                probe.complete(new double[] {probeStarted, now / 1e6});
                return;
            }
            int d = done.incrementAndGet();
            if (d == 1) {
                tFirst = now;
            }
            if (d == expected) {
                tLast = now;
                all.countDown();
            }
        }

        @Override
        public void onFailed(Job job, Throwable error) {
            Log.log("depth: job " + job.id() + " failed: " + error);
        }

        void await(double timeoutS) throws InterruptedException {
            if (!all.await((long) (timeoutS * 1000), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("only " + done.get() + " of " + expected + " backlog jobs completed");
            }
        }
    }
}
