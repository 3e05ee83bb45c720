package io.bull4j.consumer;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

import java.lang.module.ModuleDescriptor;
import java.time.Duration;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An application as ModularConsumerTest runs it: bull4j and its runtime dependencies on the module path, this
 * class on the class path, nothing else. It reports what it sees (one {@code key=value} line each) and runs
 * one job through a Queue and a Worker. Its package is not one of module io.bull4j's.
 *
 * <p>Arguments: redis URI, queue name.
 */
public final class ModularConsumerMain {
    /** A payload of the application's own; Jackson reads it because the unnamed module is open. */
    public record Greeting(String to) {
    }

    public static void main(String[] args) throws Exception {
        Module module = Queue.class.getModule();
        System.out.println("module=" + module.getName());
        ModuleDescriptor descriptor = module.getDescriptor();
        TreeSet<String> exports = new TreeSet<>();
        descriptor.exports().forEach(e -> exports.add(e.source() + (e.isQualified() ? " to " + e.targets() : "")));
        System.out.println("exports=" + exports);
        System.out.println("automatic=" + descriptor.isAutomatic());
        System.out.println("epollClass=" + loadable("io.netty.channel.epoll.Epoll"));
        System.out.println("lettuceEpoll=" + io.lettuce.core.resource.EpollProvider.isAvailable());
        System.out.println("otelClass=" + loadable("io.opentelemetry.api.OpenTelemetry"));

        try (Bull4jConnection redis = Bull4jConnection.create(args[0]);
             Queue queue = new Queue(args[1], QueueOptions.builder().connection(redis).build())) {
            queue.add("greet", new Greeting("ana"));
            CompletableFuture<Object> done = new CompletableFuture<>();
            Worker worker = new Worker(args[1], job -> Map.of("greeted", job.data(Greeting.class).to()),
                    WorkerOptions.builder().connection(redis).drainDelay(Duration.ofSeconds(1)).build(),
                    // given to the constructor: added after it, the listener could miss the job already waiting
                    new WorkerListener() {
                        @Override
                        public void onCompleted(Job job, Object result) {
                            done.complete(result);
                        }

                        @Override
                        public void onFailed(Job job, Throwable error) {
                            done.completeExceptionally(error);
                        }
                    });
            try {
                System.out.println("completed=" + done.get(30, TimeUnit.SECONDS));
            } finally {
                worker.close();
            }
        }
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, ModularConsumerMain.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
