package io.bull4j.support;

import com.redis.testcontainers.RedisContainer;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/** A Redis container from testcontainers-redis, for machines with Docker but no redis-server. */
final class DockerRedis {
    private static RedisContainer container;

    private DockerRedis() {
    }

    static boolean available() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Starts the container once per JVM (Testcontainers' reaper removes it at exit); returns its URI. */
    static synchronized String start() {
        if (container == null) {
            container = new RedisContainer(DockerImageName.parse("redis:7.2"));
            container.start();
        }
        return container.getRedisURI();
    }
}
