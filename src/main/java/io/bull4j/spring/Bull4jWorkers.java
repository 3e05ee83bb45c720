package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Bull4jException;
import io.bull4j.Processor;
import io.bull4j.VoidProcessor;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The workers of a Spring application, started once the context is refreshed and closed gracefully on shutdown,
 * before the connection: a {@link SmartLifecycle} in a late phase ({@link #PHASE}, so it starts after, and stops
 * before, the web server and other lifecycle beans). It runs three kinds of workers:
 *
 * <ul>
 *   <li>the application's own {@link Worker} beans (built with {@code autorun(false)} they are started here; all are
 *       closed here);</li>
 *   <li>methods annotated {@link Bull4jWorker};</li>
 *   <li>workers declared by properties ({@code bull4j.workers.<id>.processor} names a {@link Processor} or
 *       {@link VoidProcessor} bean).</li>
 * </ul>
 *
 * <p>On shutdown every worker stops fetching and its running jobs finish, all workers at once, for at most
 * {@code bull4j.worker.close-timeout}, which defaults to {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s);
 * jobs still running then are interrupted and given back to the queue ({@link Worker#close(Duration)}). The shared
 * connection closes only after every worker has closed.
 */
public final class Bull4jWorkers implements SmartLifecycle, SmartInitializingSingleton, BeanFactoryAware,
        DisposableBean, org.springframework.beans.factory.BeanNameAware {
    /** The lifecycle phase: late, as message listener containers use, so workers start last and stop first. */
    public static final int PHASE = Integer.MAX_VALUE - 100;

    private static final Logger log = LoggerFactory.getLogger(Bull4jWorkers.class);

    private final Bull4jConnection connection;
    private final Bull4jProperties properties;
    private final Duration closeTimeout;
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private ConfigurableListableBeanFactory beanFactory;
    private String beanName;
    private volatile boolean running;
    private volatile boolean stopped;
    private Thread stopping;

    /**
     * The workers of the application.
     *
     * @param connection the connection the workers it builds share
     * @param properties the {@code bull4j.*} properties
     * @param shutdownPhaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}, the close timeout unless
     *     {@code bull4j.worker.close-timeout} is set
     */
    public Bull4jWorkers(Bull4jConnection connection, Bull4jProperties properties, Duration shutdownPhaseTimeout) {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.properties = Objects.requireNonNull(properties, "properties");
        Duration configured = properties.getWorker().getCloseTimeout();
        this.closeTimeout = configured != null ? configured : shutdownPhaseTimeout;
    }

    @Override
    public void setBeanName(String name) {
        this.beanName = name;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
    }

    /** Builds the workers (not started yet) once every singleton exists; called by the bean factory. */
    @Override
    public void afterSingletonsInstantiated() {
        WorkerFactory factory = new WorkerFactory(connection, properties, beanFactory);
        for (Map.Entry<String, Worker> bean : beanFactory.getBeansOfType(Worker.class, false, false).entrySet()) {
            add(bean.getKey(), bean.getValue());
        }
        for (Map.Entry<String, Worker> built : factory.buildAll().entrySet()) {
            add(built.getKey(), built.getValue());
        }
        if (beanName != null) {
            // destroyed before what running jobs use: the queues, the Worker beans and the processors' beans
            java.util.Set<String> used = new java.util.LinkedHashSet<>(factory.processorBeans());
            Collections.addAll(used, beanFactory.getBeanNamesForType(Bull4jQueues.class, false, false));
            used.addAll(beanFactory.getBeansOfType(Worker.class, false, false).keySet());
            for (String name : used) {
                beanFactory.registerDependentBean(name, beanName);
            }
        }
    }

    private synchronized void add(String id, Worker worker) {
        if (workers.containsKey(id)) {
            worker.close(Duration.ZERO);
            throw new IllegalStateException("two bull4j workers have the id '" + id
                    + "': give one another id (@Bull4jWorker(id = ...) or another bull4j.workers key)");
        }
        workers.put(id, worker);
    }

    /** {@return every worker, by id (the bean name of a {@code Worker} bean), in the order they were found} */
    public synchronized Map<String, Worker> workers() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(workers));
    }

    /** {@return how long shutdown waits for running jobs before it interrupts them} */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** A worker's own {@code bull4j.workers.<id>.close-timeout} when set, else {@link #closeTimeout()}. */
    Duration closeTimeoutOf(String id) {
        Bull4jProperties.WorkerProperties own = properties.getWorkers().get(id);
        return own != null && own.getCloseTimeout() != null ? own.getCloseTimeout() : closeTimeout;
    }

    /**
     * Starts every worker that is not running yet. After {@link #stop()} the workers are closed and cannot run again:
     * a WARN says so, and the health indicator reports DOWN.
     */
    @Override
    public void start() {
        if (stopped) {
            log.warn("bull4j workers were stopped and are closed; they do not start again (restart the application)");
        }
        for (Map.Entry<String, Worker> e : workers().entrySet()) {
            Worker worker = e.getValue();
            if (!worker.isRunning() && !worker.isManual()) { // a manual worker has no loop to start
                try {
                    worker.run();
                } catch (Bull4jException alreadyRunningOrClosed) {
                    log.debug("worker {} not started: {}", e.getKey(), alreadyRunningOrClosed.getMessage());
                }
            }
        }
        running = true;
        log.debug("{} bull4j worker(s) started", workers.size());
    }

    /** Closes every worker gracefully, at once, and returns when all are closed. */
    @Override
    public void stop() {
        running = false;
        stopped = true;
        closeAll();
    }

    /**
     * Closes every worker gracefully on a thread of its own, and runs {@code callback} when all are closed, as the
     * lifecycle processor asks.
     *
     * @param callback run when every worker is closed
     */
    @Override
    public void stop(Runnable callback) {
        running = false;
        stopped = true;
        Thread t = new Thread(() -> {
            try {
                closeAll();
            } finally {
                callback.run();
            }
        }, "bull4j-workers-shutdown");
        synchronized (this) {
            stopping = t;
        }
        t.start();
    }

    private void closeAll() {
        List<Thread> closers = new ArrayList<>();
        for (Map.Entry<String, Worker> e : workers().entrySet()) {
            Thread t = new Thread(() -> {
                try {
                    e.getValue().close(closeTimeoutOf(e.getKey()));
                } catch (RuntimeException failure) {
                    log.warn("closing bull4j worker {} failed: {}", e.getKey(), failure.toString());
                }
            }, "bull4j-close-" + e.getKey());
            t.start();
            closers.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closers) {
            while (true) {
                try {
                    t.join(); // bounded: Worker.close returns within its timeout plus a short grace
                    break;
                } catch (InterruptedException ie) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@return whether the workers were started and not stopped} */
    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * {@return false: a closed {@link Worker} cannot run again, so the workers take no part in a context's
     * {@code pause()}/{@code restart()} and are stopped by its {@code stop()} or close}
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    /** {@return {@link #PHASE}} */
    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Waits for a shutdown still closing workers (the lifecycle processor stops waiting after its phase timeout,
     * but the connection must outlive the workers), then closes any worker left, such as those of a context that
     * failed to start.
     */
    @Override
    public void destroy() {
        Thread t;
        synchronized (this) {
            t = stopping;
        }
        if (t != null) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        running = false;
        closeAll();
    }

    static WorkerOptions.Builder apply(WorkerOptions.Builder b, Bull4jProperties.WorkerSettings s, String prefix) {
        if (s == null) {
            return b;
        }
        set(prefix + ".concurrency", s.getConcurrency(), b::concurrency);
        set(prefix + ".lock-duration", s.getLockDuration(), b::lockDuration);
        set(prefix + ".stalled-interval", s.getStalledInterval(), b::stalledInterval);
        set(prefix + ".max-stalled-count", s.getMaxStalledCount(), b::maxStalledCount);
        set(prefix + ".drain-delay", s.getDrainDelay(), b::drainDelay);
        set(prefix + ".close-timeout", s.getCloseTimeout(), b::closeTimeout);
        set(prefix + ".metrics-max-data-points", s.getMetricsMaxDataPoints(), b::metrics);
        set(prefix + ".check-eviction-policy", s.getCheckEvictionPolicy(), b::checkEvictionPolicy);
        return b;
    }

    /** Applies one setting; a value bull4j refuses fails with the property's name. */
    private static <T> void set(String property, T value, java.util.function.Consumer<T> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (RuntimeException e) {
            throw new IllegalStateException(property + "=" + value + " is refused: " + e.getMessage(), e);
        }
    }
}
