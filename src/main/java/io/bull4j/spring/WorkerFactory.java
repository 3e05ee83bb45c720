package io.bull4j.spring;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.Processor;
import io.bull4j.VoidProcessor;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the workers of {@link Bull4jWorker} methods and of {@code bull4j.workers.*} (not started). */
final class WorkerFactory {
    private final Bull4jConnection connection;
    private final Bull4jProperties properties;
    private final ConfigurableListableBeanFactory beanFactory;
    private final Map<String, Worker> built = new LinkedHashMap<>();
    private final java.util.Set<String> processorBeans = new java.util.LinkedHashSet<>();
    /** Ids of @Bull4jWorker methods that bull4j.workers.<id>.enabled=false switched off. */
    private final java.util.Set<String> switchedOff = new java.util.HashSet<>();
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WorkerFactory.class);

    WorkerFactory(Bull4jConnection connection, Bull4jProperties properties, ConfigurableListableBeanFactory bf) {
        this.connection = connection;
        this.properties = properties;
        this.beanFactory = bf;
    }

    Map<String, Worker> buildAll() {
        try {
            for (String beanName : beanFactory.getBeanDefinitionNames()) {
                if (beanFactory.getBeanDefinition(beanName).isAbstract()) {
                    continue;
                }
                Class<?> type = beanFactory.getType(beanName, false);
                if (type == null || !beanFactory.isSingleton(beanName)) {
                    continue;
                }
                Class<?> userType = ClassUtils.getUserClass(type);
                Map<Method, Bull4jWorker> methods = MethodIntrospector.selectMethods(userType,
                        (MethodIntrospector.MetadataLookup<Bull4jWorker>) m ->
                                AnnotatedElementUtils.findMergedAnnotation(m, Bull4jWorker.class));
                if (methods.isEmpty()) {
                    continue;
                }
                Object bean = beanFactory.getBean(beanName);
                for (Map.Entry<Method, Bull4jWorker> m : methods.entrySet()) {
                    buildAnnotated(bean, beanName, m.getKey(), m.getValue());
                }
                processorBeans.add(beanName);
            }
            for (Map.Entry<String, Bull4jProperties.WorkerProperties> e : properties.getWorkers().entrySet()) {
                buildDeclared(e.getKey(), e.getValue());
            }
            return built;
        } catch (RuntimeException e) {
            built.values().forEach(w -> w.close(java.time.Duration.ZERO));
            throw e;
        }
    }

    /** {@return the names of the beans whose methods or instances process jobs} */
    java.util.Set<String> processorBeans() {
        return processorBeans;
    }

    private void buildAnnotated(Object bean, String beanName, Method method, Bull4jWorker annotation) {
        String where = "@Bull4jWorker " + method.getDeclaringClass().getName() + "." + method.getName();
        if (method.getParameterCount() != 1 || !method.getParameterTypes()[0].isAssignableFrom(Job.class)) {
            throw new IllegalStateException(where + " must take one parameter, an io.bull4j.Job");
        }
        String queue = beanFactory.resolveEmbeddedValue(annotation.queue());
        if (queue == null || queue.isBlank()) {
            throw new IllegalStateException(where + ": queue is empty");
        }
        String id = annotation.id().isEmpty() ? queue : beanFactory.resolveEmbeddedValue(annotation.id());
        Bull4jProperties.WorkerProperties own = properties.getWorkers().get(id);
        if (own != null && !own.isEnabled()) {
            switchedOff.add(id);
            return;
        }
        if (own != null && own.getProcessor() != null) {
            throw new IllegalStateException("bull4j.workers." + id + ".processor is set, and " + where
                    + " has the same id: give one another id");
        }
        WorkerOptions.Builder b = base(id);
        if (annotation.concurrency() > 0) {
            try {
                b.concurrency(annotation.concurrency());
            } catch (RuntimeException e) {
                throw new IllegalStateException(where + ": concurrency " + e.getMessage(), e);
            }
        }
        if (!annotation.lockDuration().isEmpty()) {
            try {
                b.lockDuration(DurationStyle.detectAndParse(beanFactory.resolveEmbeddedValue(annotation.lockDuration())));
            } catch (RuntimeException e) {
                throw new IllegalStateException(where + ": lockDuration \"" + annotation.lockDuration()
                        + "\" is refused: " + e.getMessage(), e);
            }
        }
        Bull4jWorkers.apply(b, own, "bull4j.workers." + id);
        if (own != null && own.getQueue() != null) {
            queue = own.getQueue();
        }
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(invocable);
        put(id, where, method.getReturnType() == void.class
                ? new Worker(queue, (VoidProcessor) job -> invoke(invocable, bean, job), b.build())
                : new Worker(queue, (Processor) job -> invoke(invocable, bean, job), b.build()));
    }

    private void buildDeclared(String id, Bull4jProperties.WorkerProperties own) {
        if (!own.isEnabled() && own.getProcessor() == null && !switchedOff.contains(id)) {
            // neither a declared worker nor an annotated one has this id: a typo, an id bound differently (an
            // environment variable binds to lower case without dashes), or a Worker bean, which properties do
            // not switch off; the worker it was meant for runs all the same
            log.warn("bull4j.workers.{}.enabled=false switches nothing off: no @Bull4jWorker has the id '{}' and no "
                    + "processor is declared for it (a Worker bean is not switched off by properties)", id, id);
        }
        if (!own.isEnabled() || built.containsKey(id)) {
            return; // off, or the overrides of an annotated worker
        }
        String where = "bull4j.workers." + id;
        if (own.getProcessor() == null) {
            throw new IllegalStateException(where + ".processor is not set, and no @Bull4jWorker has the id '" + id
                    + "'");
        }
        if (!beanFactory.containsBean(own.getProcessor())) {
            throw new IllegalStateException(where + ".processor: no bean named '" + own.getProcessor() + "'");
        }
        Object processor = beanFactory.getBean(own.getProcessor());
        processorBeans.add(own.getProcessor());
        String queue = own.getQueue() != null ? own.getQueue() : id;
        WorkerOptions options = Bull4jWorkers.apply(base(id), own, where).build();
        if (processor instanceof Processor) {
            put(id, where, new Worker(queue, (Processor) processor, options));
        } else if (processor instanceof VoidProcessor) {
            put(id, where, new Worker(queue, (VoidProcessor) processor, options));
        } else {
            throw new IllegalStateException(where + ".processor: bean '" + own.getProcessor() + "' is a "
                    + processor.getClass().getName() + ", not an io.bull4j.Processor or VoidProcessor");
        }
    }

    private WorkerOptions.Builder base(String id) {
        WorkerOptions.Builder b = WorkerOptions.builder().connection(connection).autorun(false).name(id)
                .telemetry(beanFactory.getBeanProvider(io.bull4j.Telemetry.class).getIfUnique());
        if (properties.getPrefix() != null) {
            b.prefix(properties.getPrefix());
        }
        return Bull4jWorkers.apply(b, properties.getWorker(), "bull4j.worker");
    }

    private void put(String id, String where, Worker worker) {
        if (built.containsKey(id)) {
            worker.close(java.time.Duration.ZERO);
            throw new IllegalStateException(where + ": another worker has the id '" + id
                    + "'; set another id (@Bull4jWorker(id = ...))");
        }
        built.put(id, worker);
    }

    private static Object invoke(Method method, Object bean, Job job) throws Exception {
        try {
            return method.invoke(bean, job);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }
}
