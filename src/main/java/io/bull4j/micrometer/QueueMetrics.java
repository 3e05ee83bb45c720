package io.bull4j.micrometer;

import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.ValidationException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Gauges of a queue's job counts per state: {@code bull4j.queue.jobs} with tags {@code queue} and {@code state}
 * (BullMQ's state names: waiting, prioritized, delayed, active, completed, failed, waiting-children), plus the tags
 * given. The counts are read with one Redis call, at most once per refresh interval, and never while a scrape
 * waits: a scrape that finds the counts older than the interval starts a read on the binder's own thread and
 * reports the counts it has (NaN before the first read ends). Binding starts the first read.
 *
 * <pre>{@code
 * QueueMetrics gauges = new QueueMetrics(queue, Tags.of("app", "billing"), Duration.ofSeconds(15));
 * gauges.bindTo(registry);
 * // ... on shutdown, before the queue closes:
 * gauges.close();
 * }</pre>
 *
 * <p>Thread-safe. A binder bound for a queue and tags that another binder has gauges for replaces them (the newest
 * wins: Micrometer would otherwise hand it the older binder's gauges, which freeze at their last counts once that
 * one closes). {@link #close()} stops its thread and removes its gauges, unless another binder has replaced them.
 */
public final class QueueMetrics implements MeterBinder, AutoCloseable {
    /** The gauge's name. */
    public static final String JOBS = "bull4j.queue.jobs";
    /** The default refresh interval: 10 seconds. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(10);
    /** The states with a gauge, in this order. */
    static final List<JobState> STATES = List.of(JobState.WAITING, JobState.PRIORITIZED, JobState.DELAYED,
            JobState.ACTIVE, JobState.COMPLETED, JobState.FAILED, JobState.WAITING_CHILDREN);
    private static final Logger log = LoggerFactory.getLogger(QueueMetrics.class);

    private final Queue queue;
    private final Tags tags;
    private final long intervalNanos;
    private final AtomicBoolean reading = new AtomicBoolean();
    private final ExecutorService reader;
    private volatile Map<JobState, Long> counts;
    private volatile long readAt;
    private volatile boolean everRead;
    /** The gauges registered, with their registry, for {@link #close()}. */
    private final List<Map.Entry<MeterRegistry, Meter>> registered = new CopyOnWriteArrayList<>();

    /**
     * Gauges of {@code queue} with no extra tags, read at most every {@link #DEFAULT_REFRESH_INTERVAL}.
     *
     * @param queue the queue; it must stay open while the gauges are read
     */
    public QueueMetrics(Queue queue) {
        this(queue, Tags.empty(), DEFAULT_REFRESH_INTERVAL);
    }

    /**
     * Gauges of {@code queue}.
     *
     * @param queue the queue; it must stay open while the gauges are read
     * @param tags tags added to every gauge
     * @param refreshInterval the shortest time between two reads; zero reads on every scrape (still off the scrape's
     *     thread)
     * @throws ValidationException for a null queue or tags, or a negative interval
     */
    public QueueMetrics(Queue queue, Iterable<Tag> tags, Duration refreshInterval) {
        ValidationException.check(queue != null, "queue", "must not be null");
        ValidationException.check(tags != null, "tags", "must not be null");
        ValidationException.check(refreshInterval != null && !refreshInterval.isNegative()
                        && refreshInterval.compareTo(Duration.ofNanos(Long.MAX_VALUE)) <= 0, "refreshInterval",
                "must be zero or positive, and at most " + Duration.ofNanos(Long.MAX_VALUE) + " (was "
                        + refreshInterval + ")");
        this.queue = queue;
        this.tags = Tags.of(tags).and("queue", queue.name());
        this.intervalNanos = refreshInterval.toNanos();
        this.reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "bull4j-metrics-" + queue.name());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (JobState state : STATES) {
            // the newest binder wins: Micrometer would hand an existing gauge back, bound to the binder before
            Meter before = withTags(registry, tags.and("state", state.wireName()));
            if (before != null) {
                registry.remove(before);
            }
            Gauge gauge = Gauge.builder(JOBS, this, m -> m.count(state))
                    .description("Jobs of the queue in a state, read at most once per refresh interval")
                    .baseUnit("jobs").tags(tags).tag("state", state.wireName()).strongReference(true)
                    .register(registry);
            registered.add(Map.entry(registry, gauge));
        }
        refreshIfStale();
    }

    private double count(JobState state) {
        refreshIfStale();
        Map<JobState, Long> c = counts;
        Long n = c == null ? null : c.get(state);
        return n == null ? Double.NaN : n;
    }

    private void refreshIfStale() {
        if (everRead && System.nanoTime() - readAt < intervalNanos) {
            return;
        }
        if (!reading.compareAndSet(false, true)) {
            return; // one read at a time: the gauges of one scrape share it
        }
        try {
            reader.execute(() -> {
                try {
                    counts = queue.getJobCounts(STATES.toArray(new JobState[0]));
                } catch (RuntimeException e) {
                    log.debug("could not read the job counts of queue {}; the gauges keep the last ones",
                            queue.name(), e);
                } finally {
                    readAt = System.nanoTime();
                    everRead = true;
                    reading.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            reading.set(false);
        }
    }

    /** The gauge named {@link #JOBS} with exactly {@code all} as its tags (find's tags match a subset), or null. */
    private static Meter withTags(MeterRegistry registry, Tags all) {
        List<Tag> wanted = all.stream().toList();
        for (Gauge g : registry.find(JOBS).tags(all).gauges()) {
            if (g.getId().getTags().equals(wanted)) {
                return g;
            }
        }
        return null;
    }

    /** Stops the reading thread and removes the gauges from the registries. Idempotent. */
    @Override
    public void close() {
        reader.shutdownNow();
        for (Map.Entry<MeterRegistry, Meter> r : registered) {
            MeterRegistry registry = r.getKey();
            Meter mine = r.getValue();
            // only if still ours: a binder bound since for the same queue and tags replaced it
            if (withTags(registry, Tags.of(mine.getId().getTags())) == mine) {
                registry.remove(mine);
            }
        }
        registered.clear();
    }
}
