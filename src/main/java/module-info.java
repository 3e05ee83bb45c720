/**
 * bull4j: a job queue for the JVM on Redis, wire-compatible with BullMQ. The API is the package
 * {@link io.bull4j}; the implementation packages ({@code io.bull4j.internal.*}) are not exported.
 *
 * <p>Lettuce and Jackson are read transitively, since the API takes a Lettuce {@code RedisClient} and a Jackson
 * {@code ObjectMapper}. Job payloads are (de)serialized by Jackson, so an application on the module path opens
 * the packages of its payload classes to {@code com.fasterxml.jackson.databind}.
 */
module io.bull4j {
    requires transitive lettuce.core;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jdk8;   // Optional and friends in job data, out of the box
    requires com.fasterxml.jackson.datatype.jsr310; // java.time in job data, as ISO-8601 text
    requires org.slf4j;
    requires io.netty.buffer; // the Redis codec writes into Netty buffers directly
    // Lettuce 7 names no Netty modules of its own: without these, a module-path application misses them at run time
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.resolver.dns;
    // the TCP keepalive settings of every connection (idle/interval/count): Lettuce applies them over NIO through
    // jdk.net.ExtendedSocketOptions, and refuses every connect when that module is not resolved, as happens when the
    // application is a named module itself (started with -m, only the modules its graph requires are resolved)
    requires jdk.net;
    requires static micrometer.core; // optional: only io.bull4j.micrometer uses it, loaded when the application does
    // optional: only io.bull4j.otel uses them, loaded when the application gives an OpenTelemetryTracing
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;
    // optional: only io.bull4j.spring (the Spring Boot auto-configuration) uses them, loaded by Spring Boot alone
    requires static spring.core;
    requires static spring.beans;
    requires static spring.context;
    requires static spring.aop;
    requires static spring.boot;
    requires static spring.boot.autoconfigure;
    requires static spring.boot.health;

    exports io.bull4j;
    exports io.bull4j.micrometer;
    exports io.bull4j.otel;
    exports io.bull4j.spring;
}
