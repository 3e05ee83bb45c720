package io.bull4j.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code bull4j.*} properties of the Spring Boot auto-configuration ({@link Bull4jAutoConfiguration}): the Redis
 * connection, the key prefix, the queues to declare as beans, defaults for every worker it builds, and workers
 * declared by properties. Unset values keep bull4j's defaults ({@link io.bull4j.WorkerOptions}).
 *
 * <pre>
 * bull4j.redis.url=redis://localhost:6379
 * bull4j.queues=emails,reports
 * bull4j.worker.concurrency=5
 * bull4j.workers.reports.processor=reportProcessor
 * </pre>
 */
@ConfigurationProperties("bull4j")
public class Bull4jProperties {
    private final Redis redis = new Redis();
    /** Key prefix of every queue and worker ("bull" when unset, as in BullMQ); on Redis Cluster a hash tag such as "{bull}". */
    private String prefix;
    /** Queues declared as Queue beans: the bean of queue "emails" is named "emailsQueue" and has the qualifier "emails". */
    private List<String> queues = new ArrayList<>();
    private final WorkerDefaults worker = new WorkerDefaults();
    /** Workers declared by properties, by worker id (processor names a Processor or VoidProcessor bean), and overrides of @Bull4jWorker methods of that id. */
    private Map<String, WorkerProperties> workers = new LinkedHashMap<>();
    private final Metrics metrics = new Metrics();
    private final Tracing tracing = new Tracing();

    /** Creates the properties with bull4j's defaults. */
    public Bull4jProperties() {
    }

    /** {@return the Redis connection's settings} */
    public Redis getRedis() {
        return redis;
    }

    /** {@return the key prefix of every queue and worker, or null for bull4j's {@code "bull"}} */
    public String getPrefix() {
        return prefix;
    }

    /**
     * Sets the key prefix of every queue and worker ({@code "bull"} when unset, as in BullMQ); on Redis Cluster a
     * hash tag such as {@code "{bull}"}.
     *
     * @param prefix the prefix
     */
    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    /** {@return the names of the queues declared as {@code Queue} beans} */
    public List<String> getQueues() {
        return queues;
    }

    /**
     * Sets the names of the queues declared as {@code Queue} beans: the bean of queue {@code emails} is named
     * {@code emailsQueue} and has the qualifier {@code emails}.
     *
     * @param queues the queue names
     */
    public void setQueues(List<String> queues) {
        this.queues = queues;
    }

    /** {@return the defaults of every worker the auto-configuration builds} */
    public WorkerDefaults getWorker() {
        return worker;
    }

    /** {@return the workers declared by properties, and the overrides of annotated ones, by worker id} */
    public Map<String, WorkerProperties> getWorkers() {
        return workers;
    }

    /**
     * Sets the workers declared by properties, by worker id.
     *
     * @param workers the workers
     */
    public void setWorkers(Map<String, WorkerProperties> workers) {
        this.workers = workers;
    }

    /** {@return the Micrometer binders' settings} */
    public Metrics getMetrics() {
        return metrics;
    }

    /** {@return the OpenTelemetry tracing settings} */
    public Tracing getTracing() {
        return tracing;
    }

    /** The {@code bull4j.redis.*} properties: the one connection every queue and worker shares. */
    public static class Redis {
        /** Redis URI (redis:// or rediss:// for TLS), with the password and database in it as Lettuce reads them. */
        private String url = "redis://localhost:6379";
        /** Seed URIs of a Redis Cluster; when set they are used instead of the URL. */
        private List<String> clusterNodes = new ArrayList<>();
        /** How long any Redis command may take (10s when unset). */
        private Duration commandTimeout;

        /** Creates the settings with their defaults. */
        public Redis() {
        }

        /** {@return the Redis URI ({@code redis://}, {@code rediss://} for TLS), by default {@code redis://localhost:6379}} */
        public String getUrl() {
            return url;
        }

        /**
         * Sets the Redis URI, with the password and database in it as Lettuce reads them
         * ({@code redis://:secret@host:6379/2}).
         *
         * @param url the URI
         */
        public void setUrl(String url) {
            this.url = url;
        }

        /** {@return the seed URIs of a Redis Cluster; when not empty they are used instead of the URL} */
        public List<String> getClusterNodes() {
            return clusterNodes;
        }

        /**
         * Sets the seed URIs of a Redis Cluster; when not empty they are used instead of the URL.
         *
         * @param clusterNodes the seed URIs
         */
        public void setClusterNodes(List<String> clusterNodes) {
            this.clusterNodes = clusterNodes;
        }

        /** {@return how long any Redis command may take, or null for bull4j's 10 s} */
        public Duration getCommandTimeout() {
            return commandTimeout;
        }

        /**
         * Sets how long any Redis command may take (10 s when unset).
         *
         * @param commandTimeout the timeout
         */
        public void setCommandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
        }
    }

    /**
     * Worker settings; each unset value keeps the default below it: a declared worker's own value, then
     * {@code bull4j.worker.*}, then bull4j's default ({@link io.bull4j.WorkerOptions}).
     */
    public static class WorkerSettings {
        /** How many jobs a worker runs at once (1 when unset). */
        private Integer concurrency;
        /** How long a job's lock lasts between renewals (30s when unset). */
        private Duration lockDuration;
        /** How often the stalled check runs (30s when unset). */
        private Duration stalledInterval;
        /** How often a job may stall before it fails (1 when unset). */
        private Integer maxStalledCount;
        /** How long an idle worker's blocking fetch waits (5s when unset). */
        private Duration drainDelay;
        /** How long shutdown waits for running jobs before interrupting them; spring.lifecycle.timeout-per-shutdown-phase when unset. */
        private Duration closeTimeout;
        /** Minutes of BullMQ's per-minute metrics a worker keeps; off when unset. */
        private Integer metricsMaxDataPoints;
        /** Whether a worker logs a WARN when Redis's maxmemory-policy is not noeviction (true when unset). */
        private Boolean checkEvictionPolicy;

        /** Creates settings with nothing set. */
        public WorkerSettings() {
        }

        /** {@return how many jobs a worker runs at once, or null when unset} */
        public Integer getConcurrency() {
            return concurrency;
        }

        /**
         * Sets how many jobs a worker runs at once (1 by default).
         *
         * @param concurrency at least 1
         */
        public void setConcurrency(Integer concurrency) {
            this.concurrency = concurrency;
        }

        /** {@return how long a job's lock lasts between renewals, or null when unset} */
        public Duration getLockDuration() {
            return lockDuration;
        }

        /**
         * Sets how long a job's lock lasts between renewals (30 s by default).
         *
         * @param lockDuration the lock duration
         */
        public void setLockDuration(Duration lockDuration) {
            this.lockDuration = lockDuration;
        }

        /** {@return how often the stalled check runs, or null when unset} */
        public Duration getStalledInterval() {
            return stalledInterval;
        }

        /**
         * Sets how often the stalled check runs (30 s by default).
         *
         * @param stalledInterval the interval
         */
        public void setStalledInterval(Duration stalledInterval) {
            this.stalledInterval = stalledInterval;
        }

        /** {@return how often a job may stall before it fails, or null when unset} */
        public Integer getMaxStalledCount() {
            return maxStalledCount;
        }

        /**
         * Sets how often a job may stall before it fails (1 by default).
         *
         * @param maxStalledCount the count
         */
        public void setMaxStalledCount(Integer maxStalledCount) {
            this.maxStalledCount = maxStalledCount;
        }

        /** {@return how long an idle worker's blocking fetch waits, or null when unset} */
        public Duration getDrainDelay() {
            return drainDelay;
        }

        /**
         * Sets how long an idle worker's blocking fetch waits (5 s by default).
         *
         * @param drainDelay the delay
         */
        public void setDrainDelay(Duration drainDelay) {
            this.drainDelay = drainDelay;
        }

        /** {@return how long shutdown waits for running jobs, or null when unset} */
        public Duration getCloseTimeout() {
            return closeTimeout;
        }

        /**
         * Sets how long shutdown waits for a worker's running jobs before it interrupts them; when unset,
         * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default).
         *
         * @param closeTimeout the timeout
         */
        public void setCloseTimeout(Duration closeTimeout) {
            this.closeTimeout = closeTimeout;
        }

        /** {@return how many minutes of BullMQ's per-minute metrics a worker keeps, or null when unset} */
        public Integer getMetricsMaxDataPoints() {
            return metricsMaxDataPoints;
        }

        /**
         * Turns on BullMQ's per-minute metrics ({@link io.bull4j.WorkerOptions.Builder#metrics(int)}), keeping
         * this many minutes; off when unset.
         *
         * @param metricsMaxDataPoints the minutes kept
         */
        public void setMetricsMaxDataPoints(Integer metricsMaxDataPoints) {
            this.metricsMaxDataPoints = metricsMaxDataPoints;
        }

        /** {@return whether a worker warns when Redis may evict keys, or null when unset} */
        public Boolean getCheckEvictionPolicy() {
            return checkEvictionPolicy;
        }

        /**
         * Sets whether a worker logs a WARN when Redis's {@code maxmemory-policy} is not {@code noeviction} (true
         * by default).
         *
         * @param checkEvictionPolicy whether to check
         */
        public void setCheckEvictionPolicy(Boolean checkEvictionPolicy) {
            this.checkEvictionPolicy = checkEvictionPolicy;
        }
    }

    /** The {@code bull4j.worker.*} properties: defaults of every worker the auto-configuration builds. */
    public static class WorkerDefaults extends WorkerSettings {
        /** Creates the defaults with nothing set. */
        public WorkerDefaults() {
        }
    }

    /**
     * The {@code bull4j.workers.<id>.*} properties: a worker declared by properties (its {@code processor} names a
     * bean), or the overrides of an annotated worker of that id ({@link Bull4jWorker#id()}).
     */
    public static class WorkerProperties extends WorkerSettings {
        /** Queue the worker consumes; the worker id when unset. */
        private String queue;
        /** Name of the bean that processes the jobs: an io.bull4j.Processor or VoidProcessor. */
        private String processor;
        /** Whether the worker is built and started; false turns off an annotated worker too. */
        private boolean enabled = true;

        /** Creates a worker's properties with nothing set. */
        public WorkerProperties() {
        }

        /** {@return the queue the worker consumes, or null for the worker id} */
        public String getQueue() {
            return queue;
        }

        /**
         * Sets the queue the worker consumes (the worker id when unset).
         *
         * @param queue the queue name
         */
        public void setQueue(String queue) {
            this.queue = queue;
        }

        /** {@return the name of the bean that processes the jobs, or null for an annotated worker's overrides} */
        public String getProcessor() {
            return processor;
        }

        /**
         * Sets the name of the bean that processes the jobs: an {@link io.bull4j.Processor} or a
         * {@link io.bull4j.VoidProcessor}.
         *
         * @param processor the bean name
         */
        public void setProcessor(String processor) {
            this.processor = processor;
        }

        /** {@return whether the worker is built and started} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether the worker is built and started (true by default); false turns off an annotated worker too.
         *
         * @param enabled whether the worker runs
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The {@code bull4j.metrics.*} properties: the Micrometer binders the auto-configuration registers. */
    public static class Metrics {
        /** Whether the Micrometer binders are registered when Micrometer and a MeterRegistry bean are there. */
        private boolean enabled = true;
        /** How often the queue gauges read the job counts at most. */
        private Duration refreshInterval = Duration.ofSeconds(10);
        /** How many job names get meters of their own per worker; later names count under job.name=_other. */
        private int maxJobNames = 100;

        /** Creates the settings with their defaults. */
        public Metrics() {
        }

        /** {@return whether the binders are registered when Micrometer and a {@code MeterRegistry} bean are there} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether the binders are registered (true by default).
         *
         * @param enabled whether to register them
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** {@return how often the queue gauges read the job counts at most} */
        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        /**
         * Sets how often the queue gauges read the job counts at most (10 s by default).
         *
         * @param refreshInterval the interval
         */
        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }

        /** {@return how many job names get meters of their own, per worker} */
        public int getMaxJobNames() {
            return maxJobNames;
        }

        /**
         * Sets how many job names get meters of their own per worker (100 by default); later names count under
         * {@code job.name=_other}.
         *
         * @param maxJobNames the bound
         */
        public void setMaxJobNames(int maxJobNames) {
            this.maxJobNames = maxJobNames;
        }
    }

    /** The {@code bull4j.tracing.*} properties: OpenTelemetry tracing of the queues and workers it declares. */
    public static class Tracing {
        /** Whether queues and workers trace with the application's OpenTelemetry bean, when there is one. */
        private boolean enabled = true;

        /** Creates the settings with their defaults. */
        public Tracing() {
        }

        /** {@return whether queues and workers trace with the application's {@code OpenTelemetry} bean} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether queues and workers trace with the application's {@code OpenTelemetry} bean (true by default).
         *
         * @param enabled whether to trace
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
