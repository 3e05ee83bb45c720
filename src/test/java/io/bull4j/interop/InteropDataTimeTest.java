package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.Queue;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.bull4j.interop.InteropKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * java.time and Optional in job data, with bull4j's default mapper, across the two sides: what bull4j writes is
 * ISO-8601 text that JavaScript's {@code Date.parse} reads to the same instant in a bullmq worker, and the text
 * a Node producer writes ({@code JSON.stringify(new Date())}) is read by bull4j into the java.time types.
 */
class InteropDataTimeTest {
    record Appointment(Instant at, LocalDate day, OffsetDateTime local, Duration length, Optional<String> room,
                       Optional<String> none) {
    }

    @BeforeAll
    static void nodeAvailable() {
        NodeBullmq.assumeAvailable();
    }

    @Test
    void javaTimeWrittenByBull4jIsParsedByJavaScript() throws Exception {
        String q = queueName("time-j2n");
        Appointment a = new Appointment(Instant.parse("2024-02-29T12:34:56.789Z"), LocalDate.of(2024, 2, 29),
                OffsetDateTime.of(2024, 2, 29, 14, 34, 56, 789_000_000, ZoneOffset.ofHours(2)), Duration.ofMinutes(45),
                Optional.of("B-12"), Optional.empty());
        Job job;
        try (Queue queue = new Queue(q, queueOptions())) {
            job = queue.add("appointment", a);
        }
        List<JsonNode> done = work(q, Map.of("count", 1, "parseDates", List.of("at", "day", "local")));
        assertEquals(1, done.size());
        JsonNode line = done.get(0);
        assertEquals(job.id(), line.get("id").asText());
        JsonNode parsed = line.get("returnvalue");
        assertEquals(a.at().toEpochMilli(), parsed.get("at").asLong(), "Date.parse of the Instant");
        assertEquals(a.local().toInstant().toEpochMilli(), parsed.get("local").asLong(), "Date.parse of the offset");
        // a date-only ISO string is UTC midnight to JavaScript
        assertEquals(a.day().atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli(), parsed.get("day").asLong());
        JsonNode data = line.get("data");
        assertEquals("PT45M", data.get("length").asText(), "a Duration is ISO-8601 text");
        assertEquals("B-12", data.get("room").asText());
        assertTrue(data.get("none").isNull(), "an empty Optional is null: " + data);
    }

    @Test
    void datesWrittenByNodeAreReadAsJavaTime() throws Exception {
        String q = queueName("time-n2j");
        // what JSON.stringify gives for a Date, and plain ISO text for the rest
        Map<String, Object> data = Map.of("at", "2024-02-29T12:34:56.789Z", "day", "2024-02-29",
                "local", "2024-02-29T14:34:56.789+02:00", "length", "PT45M", "room", "B-12");
        node("add", q, List.of(job("appointment", data)));
        InteropDataRun run = InteropDataRun.runUntil(q, 1, job -> job.data(Appointment.class),
                workerOptions().build());
        InteropDataRun.Outcome o = run.outcomes().get(0);
        assertTrue(o.completed(), "bull4j failed: " + o.error());
        Appointment read = o.job().data(Appointment.class);
        assertEquals(Instant.parse("2024-02-29T12:34:56.789Z"), read.at());
        assertEquals(LocalDate.of(2024, 2, 29), read.day());
        assertEquals(OffsetDateTime.of(2024, 2, 29, 14, 34, 56, 789_000_000, ZoneOffset.ofHours(2)), read.local());
        assertEquals(Duration.ofMinutes(45), read.length());
        assertEquals(Optional.of("B-12"), read.room());
        assertEquals(Optional.empty(), read.none(), "a missing field is an empty Optional");
    }
}
