package io.bull4j;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default executor for processors: a virtual thread per job on Java 21+, else a pool of {@code concurrency}
 * platform threads. Looked up reflectively because the library is compiled for Java 17.
 */
final class ProcessorThreads {
    private ProcessorThreads() {
    }

    static ExecutorService create(String queueName, int concurrency) {
        String prefix = "bull4j-" + queueName + "-job-";
        try {
            Method ofVirtual = Thread.class.getMethod("ofVirtual");
            Object builder = ofVirtual.invoke(null);
            Method name = builder.getClass().getMethod("name", String.class, long.class);
            name.setAccessible(true);
            builder = name.invoke(builder, prefix, 0L);
            Method factory = builder.getClass().getMethod("factory");
            factory.setAccessible(true);
            ThreadFactory tf = (ThreadFactory) factory.invoke(builder);
            Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
            return (ExecutorService) perTask.invoke(null, tf);
        } catch (ReflectiveOperationException | RuntimeException e) {
            AtomicInteger n = new AtomicInteger();
            return Executors.newFixedThreadPool(concurrency, r -> {
                Thread t = new Thread(r, prefix + n.getAndIncrement());
                t.setDaemon(true);
                return t;
            });
        }
    }
}
