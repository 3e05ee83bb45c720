package io.bull4j.bench;

import io.bull4j.Bull4jConnection;
import io.bull4j.FlowJob;
import io.bull4j.FlowProducer;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Flows (issue 11), the same runs as {@code src/bench/node/driver.mjs --variant flows/...}: flows of one parent
 * (queue {@value #PARENTS}, name {@code bench-parent}, data {@code {i}}) and {@code width} children (queue
 * {@value #CHILDREN}, name {@code bench}, data {@code {i, c}}), no job ids (random UUIDs on both sides). Every
 * per-job figure counts {@code width + 1} jobs per flow.
 */
final class FlowRuns {
    static final String PARENTS = "bench-flow-parents";
    static final String CHILDREN = "bench-flow-children";
    /** Flows per addBulk call of the prefill (the Node side's too). */
    static final int PREFILL_CHUNK = 100;

    private final Bench b;

    FlowRuns(Bench b) {
        this.b = b;
    }

    static FlowJob flow(int i, int width) {
        FlowJob.Builder p = FlowJob.builder("bench-parent", PARENTS).data(Map.of("i", i));
        for (int c = 0; c < width; c++) {
            p.child(FlowJob.builder("bench", CHILDREN).data(Map.of("i", i, "c", c)).build());
        }
        return p.build();
    }

    /**
     * Adds {@code flows} flows, one {@code FlowProducer.add} call each: awaited one by one ({@code inflight} 1), or
     * {@code inflight} threads each adding the next flow as soon as its last one is stored.
     */
    Run add(int flows, int width, int inflight) throws Exception {
        b.admin.flush();
        long jobs = (long) flows * (width + 1);
        try (Bull4jConnection c = b.connect();
             FlowProducer producer = new FlowProducer(QueueOptions.builder().connection(c).build())) {
            long mem0 = b.admin.usedMemory();
            Measure.Snapshot m = b.measure.begin();
            if (inflight <= 1) {
                for (int i = 0; i < flows; i++) {
                    producer.add(flow(i, width));
                }
            } else {
                AtomicInteger next = new AtomicInteger();
                ExecutorService pool = Executors.newFixedThreadPool(inflight);
                try {
                    List<Future<?>> lanes = new ArrayList<>();
                    for (int k = 0; k < inflight; k++) {
                        lanes.add(pool.submit(() -> {
                            for (int i = next.getAndIncrement(); i < flows; i = next.getAndIncrement()) {
                                producer.add(flow(i, width));
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : lanes) {
                        f.get();
                    }
                } finally {
                    pool.shutdown();
                    pool.awaitTermination(10, TimeUnit.SECONDS);
                }
            }
            Run cost = b.measure.end(m, jobs, System.nanoTime());
            long mem1 = b.admin.usedMemory();
            try (Queue parents = b.queue(PARENTS, c); Queue children = b.queue(CHILDREN, c)) {
                long wc = parents.getWaitingChildrenCount();
                long waiting = children.getJobCounts(JobState.WAITING).get(JobState.WAITING);
                if (wc != flows || waiting != (long) flows * width) {
                    throw new IllegalStateException("flows add: expected " + flows + " parents waiting for children and "
                            + (long) flows * width + " children waiting, got " + wc + " and " + waiting);
                }
            }
            return new Run().put("flows", flows).put("jobs", jobs).put("jobs_per_s", jobs / cost.get("wall_s"))
                    .put("flows_per_s", flows / cost.get("wall_s")).putAll(cost)
                    .put("mem_bytes_per_job", (double) (mem1 - mem0) / jobs);
        }
    }

    /**
     * Prefills {@code flows} flows (FlowProducer.addBulk of {@value #PREFILL_CHUNK} flows a call), then one worker
     * per queue at {@code concurrency}: the children's returns null, the parent's reads its children's values
     * ({@code getChildrenValues}) and returns null. {@code jobs_per_s} is from the first to the last parent
     * completion; the CPU window runs from the workers' start to the last parent completion.
     */
    Run process(int flows, int width, int concurrency) throws Exception {
        b.admin.flush();
        long jobs = (long) flows * (width + 1);
        try (Bull4jConnection pc = b.connect(); Bull4jConnection cwc = b.connect(); Bull4jConnection pwc = b.connect();
             FlowProducer producer = new FlowProducer(QueueOptions.builder().connection(pc).build())) {
            long tp0 = System.nanoTime();
            for (int s = 0; s < flows; s += PREFILL_CHUNK) {
                List<FlowJob> chunk = new ArrayList<>();
                for (int i = s; i < Math.min(flows, s + PREFILL_CHUNK); i++) {
                    chunk.add(flow(i, width));
                }
                producer.addBulk(chunk);
            }
            double prefillS = (System.nanoTime() - tp0) / 1e9;
            Completions childrenDone = new Completions(flows * width);
            Completions parentsDone = new Completions(flows);
            AtomicInteger badValues = new AtomicInteger();
            Worker children = new Worker(CHILDREN, job -> null, WorkerOptions.builder().connection(cwc)
                    .concurrency(concurrency).autorun(false).build(), childrenDone);
            Worker parents = new Worker(PARENTS, job -> {
                if (job.getChildrenValues().size() != width) {
                    badValues.incrementAndGet();
                }
                return null;
            }, WorkerOptions.builder().connection(pwc).concurrency(concurrency).autorun(false).build(), parentsDone);
            Run cost;
            double firstMs;
            try {
                Measure.Snapshot m = b.measure.begin();
                children.run();
                parents.run();
                parentsDone.await(Completions.timeoutFor((int) jobs));
                cost = b.measure.end(m, jobs, parentsDone.tLast());
                firstMs = (parentsDone.tFirst() - m.tNanos()) / 1e6;
                childrenDone.await(10);
            } finally {
                children.close();
                parents.close();
            }
            if (badValues.get() != 0) {
                throw new IllegalStateException(badValues.get() + " parents did not read " + width + " children values");
            }
            try (Queue pq = b.queue(PARENTS, pc); Queue cq = b.queue(CHILDREN, pc)) {
                ThroughputRuns.checkCounts(pq, flows);
                ThroughputRuns.checkCounts(cq, (long) flows * width);
            }
            double span = (parentsDone.tLast() - parentsDone.tFirst()) / 1e9;
            return new Run().put("flows", flows).put("jobs", jobs)
                    .put("jobs_per_s", (double) (flows - 1) * (width + 1) / span)
                    .put("jobs_per_s_from_start", jobs / cost.get("wall_s"))
                    .put("first_parent_completion_ms", firstMs)
                    .put("prefill_jobs_per_s", jobs / prefillS)
                    .putAll(cost);
        }
    }
}
