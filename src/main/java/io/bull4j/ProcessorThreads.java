package io.bull4j;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default executor for processors: a virtual thread per task on Java 21+ (unless
 * {@link WorkerOptions#virtualThreads()} is off), else a pool of {@code concurrency} platform threads (more only while
 * a cancelled processor that was let go still runs, or for a moment when {@link ReadyWork} asks for one more thread
 * than it needed). A task runs ready jobs one after another ({@link ReadyWork}).
 *
 * <p>The library is compiled for Java 17, so the Java 21 API is reached by reflection, on the public types only:
 * {@code Thread.ofVirtual()} and the methods of the public interface {@code Thread.Builder}. Looking the methods
 * up on the builder's own class would find a JDK-internal class that reflection may not call.
 */
final class ProcessorThreads {
    private static final Logger log = LoggerFactory.getLogger(ProcessorThreads.class);
    /** Null when this JVM has no virtual threads (Java 17-20). */
    private static final VirtualApi VIRTUAL = VirtualApi.find();

    private ProcessorThreads() {
    }

    /** True when this JVM can run processors on virtual threads. */
    static boolean virtualThreadsAvailable() {
        return VIRTUAL != null;
    }

    static ExecutorService create(String queueName, int concurrency, boolean virtualThreads) {
        String prefix = "bull4j-" + queueName + "-job-";
        if (virtualThreads && VIRTUAL != null) {
            return VIRTUAL.perTaskExecutor(prefix);
        }
        AtomicInteger n = new AtomicInteger();
        // the worker's slots bound the jobs; the pool may grow past concurrency for a processor that a
        // cancellation let go while it still runs (so that its slot is really free for the next job), and for a
        // moment when ReadyWork asks for a thread that then finds nothing to do
        return new ThreadPoolExecutor(concurrency, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, prefix + n.getAndIncrement());
                    t.setDaemon(true);
                    return t;
                });
    }

    /** The Java 21 methods, found once. */
    private static final class VirtualApi {
        private final Method ofVirtual;
        private final Method name;
        private final Method factory;
        private final Method perTask;

        private VirtualApi(Method ofVirtual, Method name, Method factory, Method perTask) {
            this.ofVirtual = ofVirtual;
            this.name = name;
            this.factory = factory;
            this.perTask = perTask;
        }

        static VirtualApi find() {
            if (Runtime.version().feature() < 21) {
                return null;
            }
            try {
                Class<?> builder = Class.forName("java.lang.Thread$Builder");
                VirtualApi api = new VirtualApi(Thread.class.getMethod("ofVirtual"),
                        builder.getMethod("name", String.class, long.class),
                        builder.getMethod("factory"),
                        Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class));
                // proves the calls work here and now, rather than on the first job
                api.perTaskExecutor("bull4j-probe-").shutdown();
                return api;
            } catch (ReflectiveOperationException | RuntimeException e) {
                log.warn("Java {} should have virtual threads, but they could not be created ({}); processors run "
                        + "on platform threads", Runtime.version().feature(), e.toString());
                return null;
            }
        }

        ExecutorService perTaskExecutor(String prefix) {
            try {
                Object b = name.invoke(ofVirtual.invoke(null), prefix, 0L);
                ThreadFactory tf = (ThreadFactory) factory.invoke(b);
                return (ExecutorService) perTask.invoke(null, tf);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create virtual threads", e);
            }
        }
    }
}
