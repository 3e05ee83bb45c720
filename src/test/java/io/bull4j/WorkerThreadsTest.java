package io.bull4j;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The thread a processor runs on: a virtual thread on Java 21+ by default, a platform thread on Java 17-20 or when
 * {@code virtualThreads(false)}. CI runs this class on JDK 17 and on JDK 25.
 */
class WorkerThreadsTest {
    private static final boolean JAVA_21 = Runtime.version().feature() >= 21;

    @Test
    void defaultExecutorUsesVirtualThreadsOnJava21AndLater() throws Exception {
        Thread t = processorThread(workerOptions().build());
        assertEquals(JAVA_21, isVirtual(t), "Java " + Runtime.version().feature() + ": processor ran on " + t);
        assertEquals(JAVA_21, ProcessorThreads.virtualThreadsAvailable());
    }

    @Test
    void virtualThreadsCanBeTurnedOff() throws Exception {
        Thread t = processorThread(workerOptions().virtualThreads(false).concurrency(2).build());
        assertFalse(isVirtual(t), "processor ran on " + t);
        assertTrue(t.getName().matches("bull4j-threads-.*-job-[01]"), t.getName());
        assertTrue(t.isDaemon(), "pool threads never keep the JVM alive");
    }

    @Test
    void virtualThreadsOptionIsPartOfTheOptionsValue() {
        WorkerOptions off = WorkerOptions.builder().virtualThreads(false).build();
        assertTrue(WorkerOptions.DEFAULTS.virtualThreads());
        assertFalse(off.virtualThreads());
        assertFalse(off.toBuilder().build().virtualThreads());
        assertNotEquals(WorkerOptions.DEFAULTS, off);
    }

    private static Thread processorThread(WorkerOptions options) throws Exception {
        String q = queueName("threads");
        CompletableFuture<Thread> seen = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> seen.complete(Thread.currentThread()), options)) {
            queue.add("t", Map.of());
            return await(seen);
        }
    }

    /** {@code Thread.isVirtual()} exists from Java 21; on older JVMs every thread is a platform thread. */
    private static boolean isVirtual(Thread t) throws Exception {
        if (!JAVA_21) {
            return false;
        }
        Method isVirtual = Thread.class.getMethod("isVirtual");
        return (boolean) isVirtual.invoke(t);
    }
}
