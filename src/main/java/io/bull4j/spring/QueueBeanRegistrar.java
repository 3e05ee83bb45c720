package io.bull4j.spring;

import io.bull4j.Queue;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * Declares a {@code Queue} bean for each name in {@code bull4j.queues}: bean {@code <name>Queue}, qualifier
 * {@code <name>}, its instance from {@link Bull4jQueues} (which closes it).
 */
final class QueueBeanRegistrar implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {
    static final String SUFFIX = "Queue";
    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        List<String> names = Binder.get(environment).bind("bull4j.queues", Bindable.listOf(String.class))
                .orElse(List.of());
        ConfigurableListableBeanFactory factory = (ConfigurableListableBeanFactory) registry;
        for (String raw : new LinkedHashSet<>(names)) {
            String name = raw.trim();
            if (name.isEmpty()) {
                continue;
            }
            String beanName = name + SUFFIX;
            if (registry.containsBeanDefinition(beanName)) {
                continue; // the application's own bean of that name wins
            }
            RootBeanDefinition bd = new RootBeanDefinition(Queue.class, () -> {
                // the queue bean depends on the registry: beans using it are destroyed before the registry closes it
                String[] owners = factory.getBeanNamesForType(Bull4jQueues.class);
                if (owners.length == 1) {
                    factory.registerDependentBean(owners[0], beanName);
                }
                return factory.getBean(Bull4jQueues.class).get(name);
            });
            bd.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
            bd.setDestroyMethodName(""); // Bull4jQueues closes it
            registry.registerBeanDefinition(beanName, bd);
        }
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }
}
