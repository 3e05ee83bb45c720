package io.bull4j;

import io.bull4j.examples.Demo;
import io.bull4j.examples.ExampleRedis;
import io.bull4j.examples.channel.TwoServerChannel;
import io.bull4j.examples.digest.HourlyDigest;
import io.bull4j.examples.channel.TwoServerChannel.Message;
import io.bull4j.examples.notifications.NotificationService;
import io.bull4j.examples.notifications.NotificationService.DeliveryLog;
import io.bull4j.examples.notifications.NotificationService.Notification;
import io.bull4j.examples.orders.OrderFlow;
import io.bull4j.examples.orders.UnpaidOrderAutoCancel;
import io.bull4j.examples.webhooks.RateLimitedWebhookSender;
import io.bull4j.examples.webhooks.RateLimitedWebhookSender.Response;
import io.bull4j.examples.webhooks.RateLimitedWebhookSender.Webhook;
import io.bull4j.examples.orders.UnpaidOrderAutoCancel.Orders;
import io.bull4j.examples.orders.UnpaidOrderAutoCancel.Status;
import io.bull4j.support.TestRedis;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** Runs the examples end to end against the test Redis and checks their outcomes, in memory and in Redis. */
class ExamplesTest {

    @Test
    void springBootExampleProcessesTheSignupsAndReportsHealth() {
        // its keys are under a prefix of its own, which the test ACL user (keys ~bull:*) may not touch
        org.junit.jupiter.api.Assumptions.assumeFalse(io.bull4j.support.AclUser.enabled(),
                "the example's own prefix is outside the ACL user's keys");
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        List<String> results = io.bull4j.examples.spring.SpringBootExample.run(
                io.bull4j.support.RedisTestServer.get().bull4jUri(), new PrintStream(buffer, true, StandardCharsets.UTF_8));
        assertEquals(List.of("welcome mail sent to ana@example.com", "welcome mail sent to bo@example.com",
                "welcome mail sent to chi@example.com"), results);
        String out = buffer.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("health: UP {redisVersion="), out);
        assertTrue(out.contains("workers={emails={queue=emails, running=true"), out);
        assertEquals(List.of(), redis().keys("bull4j-spring-example-*"), "the example's keys are deleted");
    }

    @Test
    void hourlyDigestRunsNowAndIsScheduledForTheTopOfTheNextHourInItsZone() throws Exception {
        String q = queueName("digest");
        java.time.ZoneId kolkata = java.time.ZoneId.of("Asia/Kolkata"); // UTC+5:30: its hours are not UTC's
        java.util.concurrent.BlockingQueue<HourlyDigest.Digest> sent = new java.util.concurrent.LinkedBlockingQueue<>();
        try (HourlyDigest digest = new HourlyDigest(connection(), q, kolkata, true, sent::add)) {
            digest.record("deploy finished");
            HourlyDigest.Digest first = sent.poll(20, TimeUnit.SECONDS);
            assertNotNull(first, "the immediate digest was sent");
            assertEquals("#ops", first.channel());
            TestRedis.eventually(Duration.ofSeconds(20), () -> digest.scheduler().iterationCount() == 2,
                    "the next run is scheduled");
            io.bull4j.JobScheduler s = digest.scheduler();
            assertEquals(HourlyDigest.PATTERN, s.pattern());
            assertEquals("Asia/Kolkata", s.tz());
            java.time.ZonedDateTime next = s.next().atZone(kolkata);
            assertEquals(0, next.getMinute(), "the top of an hour in Kolkata: " + next);
            assertEquals(30, s.next().atZone(java.time.ZoneOffset.UTC).getMinute(), "which is :30 in UTC");
            assertTrue(s.next().isAfter(first.runAt()) && !s.next().isAfter(first.runAt().plus(Duration.ofHours(1))),
                    "the first top of an hour after the immediate run: " + s.next());
            String runOpts = redis().hget("bull:" + q + ":repeat:" + s.id() + ":" + s.next().toEpochMilli(), "opts");
            assertTrue(runOpts.contains("\"attempts\":3"), "the template's options are on every run: " + runOpts);
        }
        // a second start replaces the scheduler instead of adding one
        try (HourlyDigest again = new HourlyDigest(connection(), q, kolkata, false, d -> { })) {
            assertEquals(1, redis().zcard("bull:" + q + ":repeat"));
        }
    }

    @Test
    void twoServersExchangeMessagesThroughEachOthersQueue() throws Exception {
        String channel = queueName("channel");
        List<Message> received = TwoServerChannel.pingPong(connection(), channel, 5, Duration.ofSeconds(20));

        List<Message> expected = IntStream.rangeClosed(1, 5).mapToObj(i -> new Message("B", "pong " + i)).toList();
        assertEquals(expected, received, "A gets B's replies, in order (one worker per inbox)");
        for (String inbox : List.of(channel + "-a", channel + "-b")) {
            assertEquals(5, redis().zcard("bull:" + inbox + ":completed"), inbox + " completed");
            assertEquals(0, redis().llen("bull:" + inbox + ":wait"), inbox + " wait");
            assertEquals(0, redis().llen("bull:" + inbox + ":active"), inbox + " active");
        }
        // B's inbox holds A's pings, written by A's Queue as JSON
        assertEquals("{\"from\":\"A\",\"text\":\"ping 3\"}", redis().hget("bull:" + channel + "-b:3", "data"));
        assertEquals("B", redis().hget("bull:" + channel + "-b:3", "pb"), "processedBy is the worker's name");
    }

    @Test
    void orderFlowCompletesTheOrderOnceItsThreeStepsAreDoneAndFailsItWhenTheChargeFails() throws Exception {
        OrderFlow.Queues queues = new OrderFlow.Queues(queueName("orders"), queueName("payments"),
                queueName("stock"), queueName("notifications"));
        Map<String, Object> completed = new ConcurrentHashMap<>();
        Map<String, String> failed = new ConcurrentHashMap<>();
        CountDownLatch both = new CountDownLatch(2);
        OrderFlow.Services services = new OrderFlow.Services() {
            @Override
            public String charge(String orderId, long cents) {
                if (cents <= 0) {
                    throw new IllegalArgumentException("nothing to charge");
                }
                return "pay-" + orderId;
            }

            @Override
            public String reserve(String orderId, String sku) {
                return "res-" + sku;
            }

            @Override
            public void confirm(String orderId, String email) {
                if (email.isEmpty()) {
                    throw new IllegalStateException("no address");
                }
            }
        };
        try (OrderFlow shop = new OrderFlow(connection(), queues, services)) {
            shop.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    completed.put(job.id(), result);
                    both.countDown();
                }

                @Override
                public void onFailed(Job job, Throwable error) {
                    failed.put(job.id(), error.getMessage());
                    both.countDown();
                }
            });
            assertEquals(3, shop.placeOrder(new OrderFlow.Order("17", 4200, "A-1", "")).children().size());
            shop.placeOrder(new OrderFlow.Order("18", 0, "B-2", "ana@example.com"));
            assertTrue(both.await(30, TimeUnit.SECONDS), "both orders finished");
        }
        assertEquals(Map.of("order-17", Map.of("charge-17", "pay-17", "reserve-17", "res-A-1",
                "unsentConfirmations", 1)), completed);
        assertEquals(Map.of("order-18", "child bull:" + queues.payments() + ":charge-18 failed"), failed);
    }

    @Test
    void unpaidOrderIsCancelledWhenDueAndPaidOrdersAreKept() throws Exception {
        String q = queueName("orders");
        Orders orders = new Orders();
        CountDownLatch twoRan = new CountDownLatch(2);
        Map<String, Object> results = new ConcurrentHashMap<>();
        // why 3 s: paying must happen before the window closes, even on a slow, loaded machine
        try (UnpaidOrderAutoCancel shop = new UnpaidOrderAutoCancel(connection(), q, orders, Duration.ofSeconds(3))) {
            shop.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    results.put(job.id(), result);
                    twoRan.countDown();
                }
            });
            assertEquals("cancel-paid", shop.placeOrder("paid").id());
            shop.placeOrder("paid-elsewhere");
            Job unpaidJob = shop.placeOrder("unpaid");
            assertTrue(shop.pay("paid"));
            assertTrue(orders.pay("paid-elsewhere"), "paid without the shop: its cancel job stays");
            assertEquals(0, redis().exists("bull:" + q + ":cancel-paid"), "paying removed the cancel job");
            assertTrue(eventsFor(q, "cancel-paid").contains("removed"));
            assertTrue(twoRan.await(20, TimeUnit.SECONDS), "the two remaining cancel jobs ran");

            assertEquals(Map.of("cancel-paid-elsewhere", "kept:PAID", "cancel-unpaid", "cancelled"), results);
            assertEquals(Status.PAID, orders.status("paid"));
            assertEquals(Status.PAID, orders.status("paid-elsewhere"));
            assertEquals(Status.CANCELLED, orders.status("unpaid"));
            assertFalse(shop.pay("unpaid"), "a cancelled order cannot be paid");

            Map<String, String> hash = redis().hgetall("bull:" + q + ":cancel-unpaid");
            assertTrue(hash.get("opts").contains("\"delay\":3000"), "opts " + hash.get("opts"));
            assertEquals("\"cancelled\"", hash.get("returnvalue"));
            long waited = Long.parseLong(hash.get("processedOn")) - Long.parseLong(hash.get("timestamp"));
            assertTrue(waited >= 3000, "ran only after the payment window, waited " + waited + " ms");
            assertNotNull(redis().zscore("bull:" + q + ":completed", unpaidJob.id()));
            assertTrue(eventsFor(q, "cancel-unpaid").contains("delayed"), "it went through the delayed set");
        }
    }

    @Test
    void notificationIsRetriedWithBackoffAndSentOnce() throws Exception {
        String q = queueName("notify");
        AtomicInteger calls = new AtomicInteger();
        List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();
        NotificationService.Gateway flaky = (key, n) -> {
            if (calls.incrementAndGet() <= 2) {
                throw new IllegalStateException("gateway timeout");
            }
            sent.add(key + "/" + n.userId());
        };
        DeliveryLog log = new DeliveryLog();
        log.markDelivered("ntf-old"); // delivered by a run that died before completing its job
        CompletableFuture<Object> first = new CompletableFuture<>();
        CompletableFuture<Object> redelivered = new CompletableFuture<>();
        try (NotificationService service = new NotificationService(connection(), q, flaky, log,
                Duration.ofMillis(50))) {
            service.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    (job.id().equals("ntf-new") ? first : redelivered).complete(result);
                }
            });
            Job job = service.send("new", new Notification("ana", "hi"));
            Job again = service.send("new", new Notification("ana", "hi"));
            assertEquals(job.id(), again.id(), "the same notification is one job");
            service.send("old", new Notification("bo", "hello"));

            assertEquals("delivered", await(first));
            assertEquals("duplicate-skipped", await(redelivered));
        }
        assertEquals(List.of("ntf-new/ana"), sent, "sent once, on the third call, never for the old one");
        assertEquals(3, calls.get());
        assertEquals(2, log.deliveredCount());
        Map<String, String> hash = redis().hgetall("bull:" + q + ":ntf-new");
        assertEquals("3", hash.get("atm"));
        assertEquals("\"delivered\"", hash.get("returnvalue"));
        List<String> events = eventsFor(q, "ntf-new");
        assertEquals(2, events.stream().filter("delayed"::equals).count(), "two backoff waits: " + events);
        assertEquals(1, events.stream().filter("duplicated"::equals).count(), "the second add: " + events);
    }

    @Test
    void demoRunsToCompletionAndPrintsTheRetryAsARetry() throws Exception {
        String q = queueName("demo");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try {
            Demo.run(connection(), q, new PrintStream(printed, true, StandardCharsets.UTF_8));
        } catch (IllegalStateException e) {
            // what the demo printed, and where its jobs are, say which job it waited for
            throw new AssertionError(e.getMessage() + "; printed: " + printed.toString(StandardCharsets.UTF_8)
                    + "; active " + redis().lrange("bull:" + q + ":active", 0, -1) + ", wait "
                    + redis().lrange("bull:" + q + ":wait", 0, -1) + ", delayed "
                    + redis().zrange("bull:" + q + ":delayed", 0, -1) + ", completed "
                    + redis().zrange("bull:" + q + ":completed", 0, -1), e);
        }
        assertEquals(4, redis().zcard("bull:" + q + ":completed"));
        assertEquals("2", redis().hget("bull:" + q + ":4", "atm"), "the flaky job took two attempts");

        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("failed")), "nothing failed for good: " + lines);
        List<String> retries = lines.stream().filter(l -> l.startsWith("retry")).toList();
        assertEquals(1, retries.size(), lines::toString);
        assertTrue(retries.get(0).matches("retry +job 4 flaky +attempt 1 failed \\(simulated outage on attempt 1\\), "
                + "will retry in 300 ms"), retries.get(0));
    }

    /** The demo says why it starts its embedded Redis: here a REDIS_URL where nothing answers. */
    @Test
    void exampleRedisNamesWhyItStartsTheEmbeddedServer() {
        try (ExampleRedis dead = ExampleRedis.start(Map.of("REDIS_URL", "redis://127.0.0.1:1"))) {
            assertTrue(dead.isEmbedded());
            assertEquals("REDIS_URL points at 127.0.0.1:1, where no Redis answers", dead.whyEmbedded());
            assertTrue(dead.describe().contains("REDIS_URL points at 127.0.0.1:1, where no Redis answers"),
                    dead.describe());
        }
        try (ExampleRedis forced = ExampleRedis.start(Map.of("BULL4J_DEMO_EMBEDDED", "1"))) {
            assertEquals("BULL4J_DEMO_EMBEDDED is set", forced.whyEmbedded());
        }
        String live = io.bull4j.support.RedisTestServer.get().uri();
        try (ExampleRedis existing = ExampleRedis.start(Map.of("REDIS_URL", live))) {
            assertFalse(existing.isEmbedded());
            assertNull(existing.whyEmbedded());
            assertEquals("Redis at " + live, existing.describe());
        }
    }

    /** The event names of one job in the queue's events stream, oldest first. */
    private static List<String> eventsFor(String queue, String jobId) {
        return TestRedis.eventNames(queue, jobId);
    }

    @Test
    void webhooksStayWithinTheProvidersRateLimitAndHonourA429() throws Exception {
        String q = queueName("webhooks");
        java.util.concurrent.ConcurrentLinkedQueue<long[]> calls = new java.util.concurrent.ConcurrentLinkedQueue<>();
        AtomicInteger n = new AtomicInteger();
        // the provider: the 4th call is refused with 429 and a Retry-After of 600 ms
        RateLimitedWebhookSender.Provider provider = (url, body) -> {
            int call = n.incrementAndGet();
            calls.add(new long[] {System.currentTimeMillis(), call == 4 ? 429 : 200});
            return call == 4 ? new Response(429, Duration.ofMillis(600)) : new Response(200, null);
        };
        CountDownLatch sent = new CountDownLatch(8);
        WorkerListener done = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                sent.countDown();
            }
        };
        try (RateLimitedWebhookSender sender = new RateLimitedWebhookSender(connection(), q, provider, 3,
                Duration.ofMillis(400), done)) {
            Job first = sender.send(new Webhook("e1", "https://x.test/h", "{}"));
            assertEquals(first.id(), sender.send(new Webhook("e1", "https://x.test/h", "{}")).id(), "deduplicated");
            for (int i = 2; i <= 8; i++) {
                sender.send(new Webhook("e" + i, "https://x.test/h", "{\"n\":" + i + "}"));
            }
            assertTrue(sent.await(30, TimeUnit.SECONDS), "all 8 sent");
        }
        List<long[]> all = new java.util.ArrayList<>(calls);
        assertEquals(9, all.size(), "8 webhooks, one of them twice (after its 429), the duplicate never");
        long refusedAt = all.stream().filter(c -> c[1] == 429).findFirst().orElseThrow()[0];
        // the other calls of the 429's own window (at most 2 of its 3) were fetched before it and may start after it,
        // however late a loaded machine starts their threads; no job fetched later starts within the Retry-After
        long during = all.stream().filter(c -> c[0] > refusedAt && c[0] < refusedAt + 600 - 20).count();
        assertTrue(during <= 2, during + " calls during the provider's Retry-After");
        all.sort((a, b) -> Long.compare(a[0], b[0]));
        // 9 calls at 3 per 400 ms need 3 windows: the last starts at least 800 ms after the first
        assertTrue(all.get(8)[0] - all.get(0)[0] >= 800 - 20, "held to 3 per 400 ms");
        assertEquals(0, redis().zcard("bull:" + q + ":failed"));
        assertEquals(0, redis().zcard("bull:" + q + ":completed"), "removeOnComplete");
    }
}
