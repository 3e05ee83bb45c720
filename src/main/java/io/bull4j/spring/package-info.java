/**
 * The Spring Boot 4 auto-configuration of bull4j (see {@code docs/spring-boot.md}): {@code bull4j.*} properties, a
 * shared connection, queue beans, workers declared as beans, by properties or with {@link io.bull4j.spring.Bull4jWorker},
 * started with the context and closed gracefully before the connection, an Actuator health indicator and the
 * Micrometer binders. Spring Boot ({@code spring-boot-autoconfigure}, and {@code spring-boot-health} for the health
 * indicator) is an optional dependency: only an application on Spring Boot loads this package.
 */
package io.bull4j.spring;
