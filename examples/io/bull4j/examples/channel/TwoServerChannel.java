package io.bull4j.examples.channel;

import io.bull4j.Bull4jConnection;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.KeepJobs;
import io.bull4j.Queue;
import io.bull4j.QueueOptions;
import io.bull4j.Worker;
import io.bull4j.WorkerOptions;
import io.bull4j.examples.ExampleRedis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A two-way message channel between two servers, built from two queues: each server receives from its own
 * inbox queue (with a {@link Worker}) and sends to the other's (with a {@link Queue}). The servers share no
 * memory, only Redis, so they may run in different JVMs, or one of them may be a Node process using BullMQ.
 *
 * <p>Here server A sends {@code ping 1..n}; server B answers each with {@code pong i}. A message is delivered
 * at least once: a handler that must not act twice should deduplicate by {@code job.id()} (see the
 * notifications example).
 */
public final class TwoServerChannel {
    /** What travels on the channel; stored as the job's JSON data. */
    public record Message(String from, String text) {
    }

    /** Handles a message that arrived in a server's inbox. */
    @FunctionalInterface
    public interface Handler {
        void onMessage(Server self, Message message) throws Exception;
    }

    /** One end of the channel. Close it to stop receiving; the connection stays the caller's. */
    public static final class Server implements AutoCloseable {
        private final String name;
        private final Queue outbox;
        private final Worker inbox;

        /** Starts receiving from {@code ownInbox} at once; {@link #send} goes to {@code peerInbox}. */
        public Server(String name, String ownInbox, String peerInbox, Bull4jConnection redis, Handler handler) {
            this.name = name;
            this.outbox = new Queue(peerInbox, QueueOptions.builder().connection(redis)
                    // why: delivered messages need not pile up in Redis; keep a short history for debugging
                    .defaultJobOptions(JobOptions.builder().removeOnComplete(KeepJobs.count(100)).build())
                    .build());
            this.inbox = new Worker(ownInbox, job -> {
                handler.onMessage(this, job.data(Message.class));
                return null;
            }, WorkerOptions.builder().connection(redis).name(name).build());
        }

        public String name() {
            return name;
        }

        /** Sends a message to the peer's inbox; returns the job that carries it. */
        public Job send(String text) {
            return outbox.add("message", new Message(name, text));
        }

        @Override
        public void close() {
            inbox.close();
            outbox.close();
        }
    }

    private TwoServerChannel() {
    }

    /**
     * Runs a ping-pong of {@code n} messages over the queues {@code <channel>-a} and {@code <channel>-b} and
     * returns what server A received, in arrival order.
     */
    public static List<Message> pingPong(Bull4jConnection redis, String channel, int n, Duration timeout)
            throws InterruptedException {
        String inboxA = channel + "-a";
        String inboxB = channel + "-b";
        List<Message> receivedByA = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch allReplies = new CountDownLatch(n);
        try (Server b = new Server("B", inboxB, inboxA, redis,
                     (self, m) -> self.send(m.text().replace("ping", "pong")));
             Server a = new Server("A", inboxA, inboxB, redis, (self, m) -> {
                 receivedByA.add(m);
                 allReplies.countDown();
             })) {
            for (int i = 1; i <= n; i++) {
                a.send("ping " + i);
            }
            if (!allReplies.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("only " + receivedByA.size() + " of " + n + " replies within "
                        + timeout);
            }
        }
        return List.copyOf(receivedByA);
    }

    public static void main(String[] args) throws Exception {
        try (ExampleRedis server = ExampleRedis.start();
             Bull4jConnection redis = Bull4jConnection.create(server.uri())) {
            System.out.println("channel example on " + server.describe());
            String channel = "channel-" + Long.toHexString(System.nanoTime());
            try {
                for (Message m : pingPong(redis, channel, 5, Duration.ofSeconds(20))) {
                    System.out.println("A received from " + m.from() + ": " + m.text());
                }
            } finally {
                for (String inbox : List.of(channel + "-a", channel + "-b")) {
                    try (Queue queue = new Queue(inbox, QueueOptions.builder().connection(redis).build())) {
                        queue.obliterate(true);
                    }
                }
            }
        }
    }
}
