package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.bull4j.internal.codec.Json;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Job data as JSON: nothing is silently lost (an object whose fields Jackson cannot see is refused, naming the
 * class and fields, and nothing reaches Redis), java.time and Optional work with the default mapper as ISO-8601
 * text, and an application's own ObjectMapper is used for data while the protocol fields stay BullMQ's.
 */
class JsonMappingTest {

    /** Private fields, no getters: Jackson sees no property. */
    static final class Opaque {
        @SuppressWarnings("unused")
        private final String orderId = "o-1";
        @SuppressWarnings("unused")
        private final int cents = 1250;
    }

    record Wrapper(String label, Opaque inner) {
    }

    /** No instance fields at all: {} loses nothing. */
    static final class Marker {
        @SuppressWarnings("unused")
        private static final String CONSTANT = "not data";
    }

    record Schedule(Instant at, LocalDate day, LocalDateTime local, OffsetDateTime offset, Duration every,
                    Optional<String> note, Optional<String> none, OptionalInt count) {
    }

    static Schedule schedule() {
        return new Schedule(Instant.parse("2024-02-29T12:34:56.789Z"), LocalDate.of(2024, 2, 29),
                LocalDateTime.of(2024, 2, 29, 8, 0), OffsetDateTime.of(2024, 2, 29, 10, 0, 0, 0, ZoneOffset.ofHours(2)),
                Duration.ofMinutes(90), Optional.of("hi"), Optional.empty(), OptionalInt.of(3));
    }

    @Test
    void objectWithInvisibleFieldsIsRefusedNamingClassAndFieldsAndNothingIsWritten() {
        String q = queueName("json-opaque");
        try (Queue queue = new Queue(q, queueOptions())) {
            ValidationException e = assertThrows(ValidationException.class, () -> queue.add("o", new Opaque()));
            assertEquals("data", e.field());
            assertTrue(e.getMessage().contains(Opaque.class.getName()), e.getMessage());
            assertTrue(e.getMessage().contains("orderId") && e.getMessage().contains("cents"), e.getMessage());

            ValidationException nested = assertThrows(ValidationException.class,
                    () -> queue.add("o", new Wrapper("w", new Opaque())));
            assertTrue(nested.getMessage().contains("inner"), "the path to the field: " + nested.getMessage());
        }
        // the Queue's constructor writes its meta hash, as BullMQ's does; the refused adds wrote nothing
        assertEquals(java.util.List.of("bull:" + q + ":meta"), redis().keys("bull:" + q + ":*"), "nothing added");
    }

    /** Fluent accessors: Jackson sees the getter's property only, and would drop amount and currency. */
    static final class Payment {
        private final String id = "p1";
        private final long amount = 1250;
        private final String currency = "EUR";

        public String getId() {
            return id;
        }

        public long amount() {
            return amount;
        }

        public String currency() {
            return currency;
        }
    }

    static class Base {
        @SuppressWarnings("unused")
        private final String tenant = "t-1";
    }

    /** A visible property of its own, a hidden one inherited. */
    static final class Child extends Base {
        public String getName() {
            return "n";
        }
    }

    /** Every field either written or meant to be left out: stored as is. */
    @com.fasterxml.jackson.annotation.JsonIgnoreProperties("cache")
    static final class Tidy {
        private final String sku = "s-1";
        @com.fasterxml.jackson.annotation.JsonProperty("qty")
        private final int quantity = 2;
        private transient String scratch = "t";
        @com.fasterxml.jackson.annotation.JsonIgnore
        private final String secret = "x";
        private final String cache = "c";
        private final boolean isActive = true;

        public String getSku() {
            return sku;
        }

        /** Jackson's property "active", the field isActive's value: not hidden. */
        public boolean isActive() {
            return isActive;
        }
    }

    /** Jackson writes getXPos() as "xpos": the field xPos is written, not hidden. */
    static final class Point {
        private final int xPos = 3;

        public int getXPos() {
            return xPos;
        }
    }

    /**
     * Only job data is refused for partly invisible objects: a processor's return value is written as Jackson
     * writes it (refused after the processor did its work, the job would fail and run again).
     */
    @Test
    void aPartlyInvisibleReturnValueIsWrittenAsJacksonWritesIt() throws Exception {
        String q = queueName("json-partial-result");
        CompletableFuture<String> done = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> new Payment(), workerOptions().build())) {
            worker.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    done.complete(job.id());
                }
            });
            Job point = queue.add("p", new Point());
            assertEquals("{\"xpos\":3}", redis().hget("bull:" + q + ":" + point.id(), "data"));
            String id = await(done);
            assertEquals("{\"id\":\"p1\"}", redis().hget("bull:" + q + ":" + id, "returnvalue"));
        }
    }

    @Test
    void objectWithSomeInvisibleFieldsIsRefusedNamingThem() {
        String q = queueName("json-partial");
        try (Queue queue = new Queue(q, queueOptions())) {
            ValidationException fluent = assertThrows(ValidationException.class, () -> queue.add("p", new Payment()));
            assertEquals("data", fluent.field());
            assertTrue(fluent.getMessage().contains("[amount, currency]"), fluent.getMessage());
            ValidationException inherited = assertThrows(ValidationException.class,
                    () -> queue.add("c", new Child()));
            assertTrue(inherited.getMessage().contains("[tenant]"), inherited.getMessage());
            assertEquals(java.util.List.of("bull:" + q + ":meta"), redis().keys("bull:" + q + ":*"),
                    "nothing added");

            Job tidy = queue.add("t", new Tidy());
            assertEquals(Json.tree("{\"sku\":\"s-1\",\"qty\":2,\"active\":true}"),
                    Json.tree(redis().hget("bull:" + q + ":" + tidy.id(), "data")));
        }
    }

    /**
     * What the default mapper writes, a worker reads back: a string over Jackson's 20 M characters (a large base64
     * attachment), a number of 1,500 digits, a property name of 60,000 characters. Before, each was added and then
     * failed every attempt of its job ("exceeds the maximum allowed").
     */
    @Test
    void dataPastJacksonsDefaultReadLimitsIsReadBack() throws Exception {
        String q = queueName("json-limits");
        String big = "a".repeat(20_000_001);
        java.math.BigInteger digits = new java.math.BigInteger("7".repeat(1_500));
        String name = "n".repeat(60_000);
        CompletableFuture<Map<String, Object>> seen = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 seen.complete(job.data(new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() { }));
                 return null;
             }, workerOptions().build())) {
            queue.add("big", Map.of("s", big, "n", digits, name, 1));
            Map<String, Object> data = await(seen);
            assertEquals(big.length(), ((String) data.get("s")).length());
            assertEquals(digits, data.get("n"));
            assertEquals(1, data.get(name));
        }
    }

    @Test
    void objectWithoutFieldsIsStillStoredAsEmptyObject() {
        String q = queueName("json-marker");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("m", new Marker());
            assertEquals("{}", redis().hget("bull:" + q + ":" + job.id(), "data"));
        }
    }

    @Test
    void javaTimeAndOptionalAreIso8601TextAndReadBack() throws Exception {
        String q = queueName("json-time");
        CompletableFuture<Schedule> seen = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 seen.complete(job.data(Schedule.class));
                 return Map.of("finishedAt", Instant.parse("2024-03-01T00:00:00Z"));
             }, workerOptions().build())) {
            Job job = queue.add("s", schedule());
            JsonNode stored = Json.tree(redis().hget("bull:" + q + ":" + job.id(), "data"));
            assertEquals("2024-02-29T12:34:56.789Z", stored.get("at").asText());
            assertEquals("2024-02-29", stored.get("day").asText());
            assertEquals("2024-02-29T08:00:00", stored.get("local").asText());
            assertEquals("2024-02-29T10:00:00+02:00", stored.get("offset").asText());
            assertEquals("PT1H30M", stored.get("every").asText());
            assertEquals("hi", stored.get("note").asText());
            assertTrue(stored.get("none").isNull(), stored.toString());
            assertEquals(3, stored.get("count").asInt());

            assertEquals(schedule(), await(seen), "read back equal, offset kept");
            eventually(java.time.Duration.ofSeconds(20),
                    () -> redis().hget("bull:" + q + ":" + job.id(), "returnvalue") != null, "returnvalue stored");
            assertEquals("{\"finishedAt\":\"2024-03-01T00:00:00Z\"}",
                    redis().hget("bull:" + q + ":" + job.id(), "returnvalue"));
            // a generic type: the values come back as Instants, not as the text they are stored as
            Map<String, Instant> value = queue.getJob(job.id()).returnValue(
                    new com.fasterxml.jackson.core.type.TypeReference<Map<String, Instant>>() { });
            assertEquals(Map.of("finishedAt", Instant.parse("2024-03-01T00:00:00Z")), value);
        }
    }

    @Test
    void applicationMapperIsUsedForDataButNotForTheProtocolFields() throws Exception {
        ObjectMapper own = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        record Order(String orderId, int totalCents) {
        }
        String q = queueName("json-own");
        CompletableFuture<Order> seen = new CompletableFuture<>();
        JobOptions opts = JobOptions.builder().attempts(3).backoff(Backoff.fixed(java.time.Duration.ofSeconds(1)))
                .build();
        try (Queue queue = new Queue(q, queueOptions().toBuilder().objectMapper(own).build());
             Worker worker = new Worker(q, job -> {
                 seen.complete(job.data(Order.class));
                 throw new UnrecoverableException("stop");
             }, workerOptions().objectMapper(own).build())) {
            Job job = queue.add("o", new Order("o-7", 990), opts);
            Map<String, String> hash = redis().hgetall("bull:" + q + ":" + job.id());
            assertEquals("{\"order_id\":\"o-7\",\"total_cents\":990}", hash.get("data"));
            assertEquals(new Order("o-7", 990), await(seen));
            JsonNode storedOpts = Json.tree(hash.get("opts"));
            assertEquals(3, storedOpts.get("attempts").asInt(), "opts keep BullMQ's names: " + storedOpts);
            assertEquals("fixed", storedOpts.get("backoff").get("type").asText());
            eventually(java.time.Duration.ofSeconds(20),
                    () -> redis().hget("bull:" + q + ":" + job.id(), "stacktrace") != null, "failed");
            assertTrue(Json.tree(redis().hget("bull:" + q + ":" + job.id(), "stacktrace")).isArray());
        }
    }
}
