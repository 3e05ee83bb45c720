/**
 * Micrometer meters for bull4j queues and workers: {@link io.bull4j.micrometer.QueueMetrics} (job counts per state)
 * and {@link io.bull4j.micrometer.WorkerMetrics} (wait and processing timers, completed, failed, retried and stalled
 * counters). Micrometer ({@code io.micrometer:micrometer-core}) is an optional dependency of bull4j: add it to use
 * this package; without it nothing here is loaded and bull4j runs the same. The meter names are listed in
 * {@code docs/observability.md}.
 */
package io.bull4j.micrometer;
