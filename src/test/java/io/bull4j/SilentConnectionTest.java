package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.bull4j.support.ReplyCuttingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.bull4j.TestSupport.queueName;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection that stops answering without being closed (a peer gone without a reset, a flow dropped by a NAT or
 * load balancer): every call on it would time out until the kernel gives the socket up, about 15 minutes on NIO.
 * bull4j finds out with a PING after a call times out, and reconnects.
 */
class SilentConnectionTest {
    @Test
    void aConnectionThatStopsAnsweringIsReplaced() throws Exception {
        RedisTestServer server = RedisTestServer.get();
        try (ReplyCuttingProxy proxy = new ReplyCuttingProxy(server.host(), server.port())) {
            String uri = server.bull4jUri().replace(":" + server.port(), ":" + proxy.port());
            String q = queueName("silent");
            try (Bull4jConnection conn = Bull4jConnection.create(uri, Duration.ofSeconds(1));
                 Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
                queue.add("before", Map.of());
                // from this add on, the connection gets no reply at all, and stays open
                proxy.armOn("hold-every-reply");
                RedisOutcomeUnknownException e = assertThrows(RedisOutcomeUnknownException.class,
                        () -> queue.add("hold-every-reply", Map.of()));
                assertTrue(e.isTimeout(), e.toString());
                assertTrue(proxy.triggered(), "the add went through the silent connection");

                String id = FailoverTest.addWithRetries(queue, Duration.ofSeconds(15));
                assertTrue(server.sync().exists("bull:" + q + ":" + id) == 1, "added on a new connection");
            }
        }
    }
}
