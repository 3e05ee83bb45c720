package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Worker;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * bull4j's health: DOWN when Redis does not answer, or when the workers were started and one of them is no longer
 * running; else UP. Details: the Redis version, its {@code maxmemory-policy} (with a {@code warning} when it is not
 * {@code noeviction}, under which Redis may evict queue keys), and each worker's queue, state and running jobs.
 * One Redis round trip ({@code INFO memory}) per check.
 */
final class Bull4jHealthIndicator implements HealthIndicator {
    static final String EVICTION_WARNING = "maxmemory-policy is not noeviction: Redis may evict queue keys under "
            + "memory pressure and jobs are lost without an error; set maxmemory-policy noeviction";

    private final Bull4jConnection connection;
    private final Bull4jWorkers workers;

    Bull4jHealthIndicator(Bull4jConnection connection, Bull4jWorkers workers) {
        this.connection = connection;
        this.workers = workers;
    }

    @Override
    public Health health() {
        Health.Builder health;
        try {
            String policy = connection.maxmemoryPolicy();
            health = Health.up().withDetail("redisVersion", connection.serverVersion());
            if (policy != null) {
                health.withDetail("maxmemoryPolicy", policy);
                if (!policy.equals("noeviction")) {
                    health.withDetail("warning", EVICTION_WARNING);
                }
            }
        } catch (RuntimeException e) {
            health = Health.down(e);
        }
        if (workers != null) {
            Map<String, Object> states = new LinkedHashMap<>();
            boolean started = workers.isRunning();
            for (Map.Entry<String, Worker> e : workers.workers().entrySet()) {
                Worker w = e.getValue();
                Map<String, Object> state = new LinkedHashMap<>();
                state.put("queue", w.queueName());
                state.put("running", w.isRunning());
                if (w.isManual()) {
                    state.put("manual", true);
                }
                state.put("paused", w.isPaused());
                state.put("activeJobs", w.activeCount());
                states.put(e.getKey(), state);
                if (started && !w.isRunning() && !w.isManual()) { // a manual worker never runs a loop
                    health.down();
                }
            }
            health.withDetail("workers", states);
        }
        return health.build();
    }
}
