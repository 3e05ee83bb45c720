package io.bull4j.micrometer;

import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.ValidationException;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.support.ChildJvm;
import io.bull4j.support.HangingWorkerMain;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The Micrometer binders on a SimpleMeterRegistry, with real jobs on a real Redis: each meter's value after jobs that
 * complete, fail, are retried and stall (a worker JVM killed mid-job), the gauges' cached reads, and the bound on
 * job names.
 */
class MicrometerMetricsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static QueueOptions queueOptions() {
        return QueueOptions.builder().connection(TestRedis.connection()).build();
    }

    private static WorkerOptions.Builder workerOptions() {
        return WorkerOptions.builder().connection(TestRedis.connection()).drainDelay(Duration.ofSeconds(1));
    }

    private static double counter(SimpleMeterRegistry r, String name, String q, String jobName) {
        Counter c = r.find(name).tags("queue", q, "job.name", jobName).counter();
        return c == null ? 0 : c.count();
    }

    private static Timer timer(SimpleMeterRegistry r, String name, String q, String jobName, String... more) {
        return r.find(name).tags("queue", q, "job.name", jobName).tags(more).timer();
    }

    @Test
    void workerMetersCountCompletedFailedAndRetriedJobsWithTheirTimes() throws Exception {
        String q = TestRedis.queueName("micrometer");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 3; i++) {
                queue.add("ok", Map.of());
            }
            queue.add("bad", Map.of(), JobOptions.builder().attempts(2).build());   // fails twice: 1 retry, 1 final
            queue.add("flaky", Map.of(), JobOptions.builder().attempts(3).build()); // fails once, then completes
            Worker worker = new Worker(q, (Job job) -> {
                if (job.name().equals("bad") || (job.name().equals("flaky") && job.attemptsMade() == 0)) {
                    throw new IllegalStateException("failed on purpose");
                }
                Thread.sleep(20); // a processing time the timer can see (the job's work, not a wait for an outcome)
                return "done";
            }, workerOptions().autorun(false).build());
            WorkerMetrics meters = new WorkerMetrics(worker, Tags.of("app", "test"), 10);
            meters.bindTo(registry);
            worker.run();
            try {
                TestRedis.eventually(WAIT, () -> counter(registry, WorkerMetrics.COMPLETED, q, "ok") == 3
                        && counter(registry, WorkerMetrics.COMPLETED, q, "flaky") == 1
                        && counter(registry, WorkerMetrics.FAILED, q, "bad") == 1, "all outcomes counted");
            } finally {
                worker.close();
                meters.close();
            }
        }
        assertEquals(3, counter(registry, WorkerMetrics.COMPLETED, q, "ok"));
        assertEquals(1, counter(registry, WorkerMetrics.COMPLETED, q, "flaky"));
        assertEquals(0, counter(registry, WorkerMetrics.COMPLETED, q, "bad"));
        assertEquals(1, counter(registry, WorkerMetrics.FAILED, q, "bad"), "the final failure only");
        assertEquals(0, counter(registry, WorkerMetrics.FAILED, q, "flaky"), "a retried attempt is not a failure");
        assertEquals(1, counter(registry, WorkerMetrics.RETRIED, q, "bad"));
        assertEquals(1, counter(registry, WorkerMetrics.RETRIED, q, "flaky"));
        assertEquals(0, counter(registry, WorkerMetrics.RETRIED, q, "ok"));

        assertEquals(3, timer(registry, WorkerMetrics.WAIT, q, "ok").count(), "one wait per attempt started");
        assertEquals(2, timer(registry, WorkerMetrics.WAIT, q, "bad").count());
        assertEquals(2, timer(registry, WorkerMetrics.WAIT, q, "flaky").count());
        Timer okProcess = timer(registry, WorkerMetrics.PROCESS, q, "ok", "outcome", "completed");
        assertEquals(3, okProcess.count());
        assertTrue(okProcess.totalTime(TimeUnit.MILLISECONDS) >= 3 * 20 - 3,
                "finishedOn - processedOn of each: " + okProcess.totalTime(TimeUnit.MILLISECONDS));
        assertEquals(1, timer(registry, WorkerMetrics.PROCESS, q, "flaky", "outcome", "completed").count());
        assertEquals(1, timer(registry, WorkerMetrics.PROCESS, q, "bad", "outcome", "failed").count());
        assertEquals(0, timer(registry, WorkerMetrics.PROCESS, q, "bad", "outcome", "completed").count());

        for (Meter m : registry.getMeters()) {
            if (m.getId().getName().startsWith("bull4j.")) {
                assertEquals("test", m.getId().getTag("app"), m.getId().toString());
                assertEquals(q, m.getId().getTag("queue"), m.getId().toString());
            }
        }
        assertEquals(0, registry.get(WorkerMetrics.STALLED).tags("queue", q).counter().count());
    }

    @Test
    void aJobOfAKilledWorkerJvmIsCountedAsStalled() throws Exception {
        String q = TestRedis.queueName("micrometer-stalled");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            try (ChildJvm child = ChildJvm.start(HangingWorkerMain.class, RedisTestServer.get().bull4jUri(), q,
                    "2000", "1000")) {
                assertTrue(child.awaitLine(l -> l.startsWith("STARTED " + job.id() + " "), 60) != null);
                child.kill();
            }
            Worker worker = new Worker(q, (Job j) -> "recovered", workerOptions().autorun(false)
                    .lockDuration(Duration.ofSeconds(2)).stalledInterval(Duration.ofSeconds(1)).build());
            WorkerMetrics meters = new WorkerMetrics(worker);
            meters.bindTo(registry);
            worker.run();
            try {
                TestRedis.eventually(WAIT, () -> counter(registry, WorkerMetrics.COMPLETED, q, "slow") == 1,
                        "the stalled job completed here");
            } finally {
                worker.close();
                meters.close();
            }
        }
        assertEquals(1, registry.get(WorkerMetrics.STALLED).tags("queue", q).counter().count());
        assertEquals(1, counter(registry, WorkerMetrics.COMPLETED, q, "slow"));
        assertEquals(0, counter(registry, WorkerMetrics.FAILED, q, "slow"));
        assertEquals(1, timer(registry, WorkerMetrics.WAIT, q, "slow").count(), "the attempt started here");
    }

    @Test
    void jobNamesPastTheBoundShareOneTag() throws Exception {
        String q = TestRedis.queueName("micrometer-names");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queue queue = new Queue(q, queueOptions())) {
            for (String name : List.of("a", "b", "c", "d", "a")) {
                queue.add(name, Map.of());
            }
            Worker worker = new Worker(q, (Job j) -> null, workerOptions().autorun(false).build());
            WorkerMetrics meters = new WorkerMetrics(worker, Tags.empty(), 2);
            meters.bindTo(registry);
            worker.run();
            try {
                TestRedis.eventually(WAIT, () -> registry.find(WorkerMetrics.COMPLETED).counters().stream()
                        .mapToDouble(Counter::count).sum() == 5, "five completions");
            } finally {
                worker.close();
                meters.close();
            }
        }
        Set<String> names = registry.find(WorkerMetrics.COMPLETED).counters().stream()
                .map(c -> c.getId().getTag("job.name")).collect(Collectors.toSet());
        assertEquals(Set.of("a", "b", WorkerMetrics.OTHER_NAME), names);
        assertEquals(2, counter(registry, WorkerMetrics.COMPLETED, q, "a"));
        assertEquals(1, counter(registry, WorkerMetrics.COMPLETED, q, "b"));
        assertEquals(2, counter(registry, WorkerMetrics.COMPLETED, q, WorkerMetrics.OTHER_NAME));
        assertThrows(ValidationException.class, () -> new WorkerMetrics(null));
    }

    @Test
    void queueGaugesReadTheCountsAtMostOncePerInterval() throws Exception {
        String q = TestRedis.queueName("micrometer-gauges");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queue queue = new Queue(q, queueOptions());
             QueueMetrics everyScrape = new QueueMetrics(queue, Tags.of("app", "x"), Duration.ZERO);
             QueueMetrics hourly = new QueueMetrics(queue, Tags.of("app", "hourly"), Duration.ofHours(1))) {
            queue.add("w", Map.of());
            queue.add("w", Map.of());
            queue.add("p", Map.of(), JobOptions.builder().priority(4).build());
            queue.add("d", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build());
            everyScrape.bindTo(registry);
            hourly.bindTo(registry);
            TestRedis.eventually(WAIT, () -> xGauge(registry, q, "waiting") == 2, "waiting read");
            TestRedis.eventually(WAIT, () -> hourlyGauge(registry, q, "waiting") == 2, "hourly read once");
            assertEquals(Set.of("waiting", "prioritized", "delayed", "active", "completed", "failed",
                    "waiting-children"), registry.find(QueueMetrics.JOBS).tag("app", "x").gauges().stream()
                    .map(g -> g.getId().getTag("state")).collect(Collectors.toSet()));
            assertEquals(1, xGauge(registry, q, "prioritized"));
            assertEquals(1, xGauge(registry, q, "delayed"));
            assertEquals(0, xGauge(registry, q, "active"));

            queue.add("w", Map.of());
            TestRedis.eventually(WAIT, () -> xGauge(registry, q, "waiting") == 3, "read again on a later scrape");
            assertEquals(2, hourlyGauge(registry, q, "waiting"), "within its interval: the counts read before");
            assertEquals(2, hourlyGauge(registry, q, "waiting"));
        }
        assertThrows(ValidationException.class, () -> new QueueMetrics(null));
    }

    /** A queue opened again gets live gauges: the closed binder's are removed, not handed to the new one. */
    @Test
    void aBinderMadeAfterTheFirstIsClosedReportsItsOwnCounts() throws Exception {
        String q = TestRedis.queueName("micrometer-rebind");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Queue first = new Queue(q, queueOptions())) {
            first.add("w", Map.of());
            try (QueueMetrics gauges = new QueueMetrics(first, Tags.of("app", "x"), Duration.ZERO)) {
                gauges.bindTo(registry);
                TestRedis.eventually(WAIT, () -> xGauge(registry, q, "waiting") == 1, "first binder read");
            }
            assertTrue(Double.isNaN(xGauge(registry, q, "waiting")), "its gauges are gone");
        }
        try (Queue again = new Queue(q, queueOptions());
             QueueMetrics gauges = new QueueMetrics(again, Tags.of("app", "x"), Duration.ZERO)) {
            again.add("w", Map.of());
            gauges.bindTo(registry);
            TestRedis.eventually(WAIT, () -> xGauge(registry, q, "waiting") == 2, "the new binder's counts");
            // a third bound before the second closes (a context refresh): the second's close leaves the third's; a
            // binder whose tags are a superset of these is another binder, whose gauges stay
            try (QueueMetrics third = new QueueMetrics(again, Tags.of("app", "x"), Duration.ZERO);
                 QueueMetrics wider = new QueueMetrics(again, Tags.of("app", "x", "env", "y"), Duration.ZERO)) {
                wider.bindTo(registry);
                third.bindTo(registry);
                gauges.close();
                again.add("w", Map.of());
                TestRedis.eventually(WAIT, () -> xGauge(registry, q, "waiting") == 3, "the third binder's counts");
                // the third's gauge (exactly these tags) and the wider one's are both there
                assertEquals(2, registry.find(QueueMetrics.JOBS).tags("queue", q, "app", "x", "state", "waiting")
                        .gauges().size());
            }
            assertEquals("refreshInterval", assertThrows(ValidationException.class, () -> new QueueMetrics(again,
                    Tags.empty(), java.time.temporal.ChronoUnit.FOREVER.getDuration())).field());
        }
    }

    private static double xGauge(SimpleMeterRegistry r, String q, String state) {
        Gauge g = r.find(QueueMetrics.JOBS).tags("queue", q, "state", state, "app", "x").gauge();
        return g == null ? Double.NaN : g.value();
    }

    private static double hourlyGauge(SimpleMeterRegistry r, String q, String state) {
        Gauge g = r.find(QueueMetrics.JOBS).tags("queue", q, "state", state, "app", "hourly").gauge();
        return g == null ? Double.NaN : g.value();
    }
}
