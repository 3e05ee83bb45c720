package io.bull4j.spring;

import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.micrometer.QueueMetrics;
import io.bull4j.micrometer.WorkerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.springframework.context.SmartLifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Binds bull4j's Micrometer binders to the application's {@link MeterRegistry}: a {@link QueueMetrics} per queue of
 * {@link Bull4jQueues} and a {@link WorkerMetrics} per worker of {@link Bull4jWorkers}. It starts just before the
 * workers (so their first jobs are counted) and stops just after them.
 */
final class Bull4jMeters implements SmartLifecycle, org.springframework.beans.factory.DisposableBean {
    private final MeterRegistry registry;
    private final Bull4jQueues queues;
    private final Bull4jWorkers workers;
    private final Bull4jProperties.Metrics settings;
    private final List<AutoCloseable> bound = new ArrayList<>();
    private volatile boolean running;

    Bull4jMeters(MeterRegistry registry, Bull4jQueues queues, Bull4jWorkers workers, Bull4jProperties.Metrics s) {
        this.registry = registry;
        this.queues = queues;
        this.workers = workers;
        this.settings = s;
    }

    @Override
    public synchronized void start() {
        for (Queue queue : queues.all().values()) {
            QueueMetrics m;
            try {
                m = new QueueMetrics(queue, Tags.empty(), settings.getRefreshInterval());
            } catch (io.bull4j.ValidationException e) {
                throw new IllegalStateException("bull4j.metrics.refresh-interval=" + settings.getRefreshInterval()
                        + " is refused: " + e.getMessage(), e);
            }
            m.bindTo(registry);
            bound.add(m);
        }
        for (Map.Entry<String, Worker> e : workers.workers().entrySet()) {
            WorkerMetrics m;
            try {
                m = new WorkerMetrics(e.getValue(), Tags.of("worker", e.getKey()), settings.getMaxJobNames());
            } catch (io.bull4j.ValidationException ve) {
                throw new IllegalStateException("bull4j.metrics.max-job-names=" + settings.getMaxJobNames()
                        + " is refused: " + ve.getMessage(), ve);
            }
            m.bindTo(registry);
            bound.add(m);
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        for (AutoCloseable m : bound) {
            try {
                m.close();
            } catch (Exception ignored) {
                // the binders' close does not throw
            }
        }
        bound.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Not paused with the context: its workers are closed for good on stop (Bull4jWorkers is not pauseable
     * either), and a restart would bind new binders to meters Micrometer already holds, left on the old ones.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    /** Closes the binders (their reader threads, their listeners) also when the context failed to start. */
    @Override
    public void destroy() {
        stop();
    }

    @Override
    public int getPhase() {
        return Bull4jWorkers.PHASE - 1;
    }
}
