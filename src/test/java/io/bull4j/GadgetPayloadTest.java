package io.bull4j;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.codec.Json;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.key;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job data is never turned into a class it names: the default mapper has no default typing, so polymorphic type ids
 * ({@code "@class"}, {@code "@type"}, Jackson's {@code ["class", {...}]} wrapper) stay plain data, and a field whose
 * declared type cannot hold plain data fails that job (with a reason naming {@code data} and the job), not the worker.
 */
class GadgetPayloadTest {
    /** Stands for a deserialization gadget: counts every instance anyone creates. */
    public static final class Gadget implements Runnable {
        static final AtomicInteger CREATED = new AtomicInteger();
        public String cmd;

        public Gadget() {
            CREATED.incrementAndGet();
        }

        @Override
        public void run() {
            throw new AssertionError("a gadget ran: " + cmd);
        }
    }

    record Envelope(String id, Object payload) {
    }

    record Holder(Runnable task) {
    }

    private static final String GADGET = Gadget.class.getName();

    @Test
    void theDefaultMapperHasNoDefaultTyping() {
        ObjectMapper m = Json.DEFAULT;
        for (Class<?> c : List.of(Object.class, Map.class, Runnable.class, Envelope.class)) {
            JavaType t = m.constructType(c);
            assertNull(m.getDeserializationConfig().getDefaultTyper(t), "default typing for " + c);
            assertNull(m.getSerializationConfig().getDefaultTyper(t), "default typing for " + c);
        }
    }

    @Test
    void gadgetPayloadsAreReadAsPlainDataOrFailTheirJobNotTheWorker() throws Exception {
        Gadget.CREATED.set(0);
        String q = queueName("gadget");
        Map<String, String> payloads = new java.util.LinkedHashMap<>();
        payloads.put("asObject", "{\"@class\":\"" + GADGET + "\",\"cmd\":\"calc\"}");
        payloads.put("asObjectTypeId", "{\"@type\":\"" + GADGET + "\",\"@c\":\"" + GADGET + "\",\"cmd\":\"calc\"}");
        payloads.put("asObjectWrapper", "[\"" + GADGET + "\",{\"cmd\":\"calc\"}]");
        payloads.put("asMap", "{\"@class\":\"" + GADGET + "\",\"cmd\":\"calc\"}");
        payloads.put("asEnvelope", "{\"id\":\"e1\",\"payload\":[\"" + GADGET + "\",{\"cmd\":\"calc\"}]}");
        payloads.put("asHolder", "{\"task\":{\"@class\":\"" + GADGET + "\",\"cmd\":\"calc\"}}");
        payloads.put("asHolderWrapper", "{\"task\":[\"" + GADGET + "\",{\"cmd\":\"calc\"}]}");

        Map<String, Object> read = new ConcurrentHashMap<>();
        Map<String, Throwable> failed = new ConcurrentHashMap<>();
        CountDownLatch finished = new CountDownLatch(payloads.size() + 1);
        try (Queue queue = new Queue(q, queueOptions())) {
            Map<String, String> ids = new java.util.LinkedHashMap<>();
            for (String name : payloads.keySet()) {
                ids.put(name, queue.add(name, Map.of()).id());
            }
            String plainId = queue.add("plain", Map.of("n", 1)).id();
            // why by hand: a producer (Node, or a hostile one) writes the JSON; bull4j would never write these
            ids.forEach((name, id) -> redis().hset(key(q, id), "data", payloads.get(name)));

            WorkerListener listener = new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    finished.countDown();
                }

                @Override
                public void onFailed(Job job, Throwable error) {
                    failed.put(job.name(), error);
                    finished.countDown();
                }
            };
            try (Worker worker = new Worker(q, job -> {
                Object value = switch (job.name()) {
                    case "asObject", "asObjectTypeId", "asObjectWrapper" -> job.data(Object.class);
                    case "asMap" -> job.data(Map.class);
                    case "asEnvelope" -> job.data(Envelope.class).payload();
                    case "asHolder", "asHolderWrapper" -> job.data(Holder.class).task();
                    default -> job.data();
                };
                read.put(job.name(), value);
                return "ok";
            }, workerOptions().build(), listener)) {
                assertTrue(finished.await(30, TimeUnit.SECONDS), "every job finished: read " + read.keySet()
                        + ", failed " + failed.keySet());
            }

            assertEquals(0, Gadget.CREATED.get(), "no payload instantiated the class it names");
            assertEquals(Map.of("@class", GADGET, "cmd", "calc"), read.get("asObject"));
            assertEquals(Map.of("@type", GADGET, "@c", GADGET, "cmd", "calc"), read.get("asObjectTypeId"));
            assertEquals(List.of(GADGET, Map.of("cmd", "calc")), read.get("asObjectWrapper"));
            assertEquals(Map.of("@class", GADGET, "cmd", "calc"), read.get("asMap"));
            assertEquals(List.of(GADGET, Map.of("cmd", "calc")), read.get("asEnvelope"));
            assertEquals(Map.of("n", 1), read.get("plain"), "the worker went on with the next job");

            for (String name : List.of("asHolder", "asHolderWrapper")) {
                Throwable e = failed.get(name);
                JobException bad = assertInstanceOf(JobException.class, e, name);
                assertEquals(JobException.Reason.BAD_DATA, bad.reason());
                String id = ids.get(name);
                assertTrue(bad.getMessage().contains("field data") && bad.getMessage().contains("job " + id),
                        bad.getMessage());
                assertEquals(JobState.FAILED, queue.getJob(id).getState());
            }
            assertEquals(2, failed.size(), "only the jobs whose type cannot hold the data failed: " + failed);
            assertEquals(JobState.COMPLETED, queue.getJob(plainId).getState());
        }
    }
}
