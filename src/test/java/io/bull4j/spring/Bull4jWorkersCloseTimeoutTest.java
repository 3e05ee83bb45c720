package io.bull4j.spring;

import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A worker's own bull4j.workers.<id>.close-timeout is what shutdown waits for it; the others get the global one. */
class Bull4jWorkersCloseTimeoutTest {
    @Test
    void aWorkersOwnCloseTimeoutWinsOverTheGlobalOne() {
        Bull4jProperties properties = new Bull4jProperties();
        properties.getWorker().setCloseTimeout(Duration.ofSeconds(30));
        Bull4jProperties.WorkerProperties reports = new Bull4jProperties.WorkerProperties();
        reports.setCloseTimeout(Duration.ofMinutes(5));
        properties.getWorkers().put("reports", reports);
        properties.getWorkers().put("emails", new Bull4jProperties.WorkerProperties());
        Bull4jWorkers workers = new Bull4jWorkers(TestRedis.connection(), properties, Duration.ofSeconds(10));
        assertEquals(Duration.ofMinutes(5), workers.closeTimeoutOf("reports"));
        assertEquals(Duration.ofSeconds(30), workers.closeTimeoutOf("emails"));
        assertEquals(Duration.ofSeconds(30), workers.closeTimeoutOf("a-worker-bean"));
    }
}
