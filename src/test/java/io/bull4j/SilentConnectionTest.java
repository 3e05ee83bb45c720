package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.bull4j.support.ReplyCuttingProxy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static io.bull4j.TestSupport.queueName;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

    /**
     * A call queued behind a long script of the same connection (a big flow's single script, whose budget is longer
     * than the command timeout) times out while Redis is healthy. No probe is made then: a PING behind the script
     * would time out too, and dropping the connection failed the flow that Redis was applying ("outcome unknown").
     */
    @Test
    void aLongFlowScriptIsNotTakenForASilentConnection() throws Exception {
        String q = queueName("silent-flow");
        FlowJob.Builder flow = FlowJob.builder("parent", q);
        for (int i = 0; i < 12_000; i++) {
            flow.child(FlowJob.builder("c", q).data(Map.of("i", i)).build());
        }
        FlowJob big = flow.build();
        try (Bull4jConnection conn = Bull4jConnection.create(RedisTestServer.get().bull4jUri(),
                Duration.ofMillis(100));
             FlowProducer producer = new FlowProducer(QueueOptions.builder().connection(conn).build());
             Queue queue = new Queue(q, QueueOptions.builder().connection(conn).build())) {
            java.util.concurrent.CompletableFuture<Object> added = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return producer.add(big);
                } catch (RuntimeException e) {
                    return e;
                }
            });
            int timedOut = 0;
            while (!added.isDone()) {
                try {
                    queue.add("beside", Map.of());
                } catch (RedisOutcomeUnknownException e) {
                    timedOut++; // queued behind the flow's script
                } catch (RedisNotAppliedException e) {
                    // queued behind it too, and refused by Redis as late: that answer can beat the call's bound
                    assertTrue(e.getMessage().contains("after its deadline"), "refused as late, not unsent: " + e);
                    timedOut++;
                }
            }
            Object outcome = added.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertFalse(outcome instanceof RuntimeException, "the flow was added: " + outcome);
            assertTrue(timedOut > 0, "calls timed out behind the flow's script, as the case needs");
        }
    }
}
