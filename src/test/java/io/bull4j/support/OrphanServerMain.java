package io.bull4j.support;

import java.util.concurrent.CountDownLatch;

/** A child JVM that starts a dedicated redis-server, prints its port, and waits to be killed. */
public final class OrphanServerMain {
    public static void main(String[] args) throws Exception {
        RedisTestServer server = RedisTestServer.startDedicated();
        System.out.println("PORT " + server.port());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
