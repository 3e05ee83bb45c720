package io.bull4j.internal.cron;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java cron side against the real cron-parser that bullmq 6.7.0 resolves: for every (pattern, zone, start)
 * case both sides give the next 5 times (or both refuse the pattern). One Node process answers all cases.
 */
class CronDifferentialTest {
    private static final int COUNT = 5;

    static final String[] PATTERNS = {
        // 5 fields, plain
        "* * * * *", "0 * * * *", "*/15 * * * *", "0 9 * * *", "30 2 * * *", "30 1 * * *", "0 0 * * *",
        "5 4 * * sun", "0 22 * * 1-5", "23 0-20/2 * * *", "0 0,12 1 */2 *", "0 4 8-14 * *", "0 0 1 * *",
        "15 10 * * mon,wed,FRI", "0 12 * jan-mar *", "0 0 29 2 *", "0 0 31 * *", "0 0 L * *", "0 0 L 2 *",
        "0 10 * * 5L", "0 10 * * fri#2", "0 8 * * 1#1", "0 8 * * 0#5", "0 0 1 * 1", "0 0 13 * 5",
        "0 0 * * 7", "0 0 * * 0,7", "0 0 * * 5-7", "*/7 * * * *", "5/10 * * * *", "0 1-3 * * *",
        "0 2 * * *", "0 3 * * *", "0 */2 * * *", "0 0-23/3 * * *", "59 23 31 12 *", "0 12 ? * ?",
        "0 0 */1 * 1", "0 0 1,15 * 3", "0 0 1-7 * 1", "0 6 * 6-8 sat,sun", "0 0 1 1 *", "* 2 * * *",
        "0 0 30 4,6 *", "0 0 L * 5L", "0 9 * * 2L", "0 0 * * 6#3", "15 14 1 * *", "0 0,30 8-17 * 1-5",
        "@daily", "@hourly", "@weekly", "@monthly", "@yearly", "@weekdays", "@weekends",
        // 6 fields (seconds first)
        "* * * * * *", "*/10 * * * * *", "0 */5 * * * *", "30 30 2 * * *", "0 0 1-3 * * *", "45 59 23 * * *",
        "0 0 12 L * *", "0 0 0 * * 5#3", "15,45 * * * * *", "0 0 9 * * 1-5", "0 0 2 * * *", "10 0 1 * * *",
        "0 30 * * * *", "5-10 0 0 * * *", "0 0 0 1 jan *", "0 0 */6 * * *", "0 15 2 * * 0",
        // refused by cron-parser (both sides must refuse)
        "0 0 15W * *", "61 * * * *", "* * * * * * *", "0 0 30 2 *", "0 0 * * L", "0 0 * * 1#6", "0 0 * * 1-2#2",
        "a b c d e", "0 0 * foo *", "0 0 1,1 * *", "0 0 * * 0,7,1", "5-1 * * * *", "*/0 * * * *",
        "0 24 * * *", "0 0 0 * *", "0 0 32 * *", "0 0 * 13 *",
    };
    static final String[] ZONES = {
        "UTC", "America/New_York", "Europe/London", "Europe/Berlin", "Australia/Sydney", "Asia/Kolkata",
        "America/Sao_Paulo", "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Tokyo", "America/Los_Angeles",
    };
    /** Starts near the 2024-2026 DST changes of those zones, month ends, leap day, and plain instants. */
    static final String[] STARTS = {
        "2024-03-10T06:30:00Z", "2024-03-10T05:59:59.500Z", "2024-11-03T05:00:00Z", "2024-11-03T05:59:00Z",
        "2024-03-31T00:30:00Z", "2024-10-27T00:30:00Z", "2024-10-27T01:00:00.001Z", "2025-04-05T15:00:00Z",
        "2025-10-04T15:30:00Z", "2024-02-28T23:00:00Z", "2024-12-31T23:59:59Z", "2025-01-15T12:34:56.789Z",
        "2026-03-08T09:59:59Z", "2025-11-02T08:30:00Z", "2025-03-30T00:59:59Z", "2025-04-06T12:30:00Z",
        "2025-09-27T14:00:00Z", "2026-06-30T23:00:00Z",
    };

    @Test
    void javaTimesEqualCronParsers() throws Exception {
        NodeBullmq.assumeAvailable();
        ObjectMapper json = new ObjectMapper();
        List<String[]> cases = cases();
        assertTrue(cases.size() >= 300, "at least 300 cases, got " + cases.size());
        ArrayNode input = json.createArrayNode();
        for (String[] c : cases) {
            ObjectNode o = input.addObject();
            o.put("pattern", c[0]);
            o.put("tz", c[1]);
            o.put("from", Instant.parse(c[2]).toEpochMilli());
            o.put("count", COUNT);
        }
        Path file = Files.createTempFile("cron-cases", ".json");
        try {
            Files.writeString(file, json.writeValueAsString(input));
            JsonNode answers = NodeBullmq.runOne(Duration.ofSeconds(60), "cron-diff.mjs", file.toString());
            List<String> mismatches = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < cases.size(); i++) {
                String[] c = cases.get(i);
                JsonNode node = answers.get(i);
                List<Long> expected = new ArrayList<>();
                node.get("times").forEach(t -> expected.add(t.asLong()));
                boolean nodeError = node.has("error");
                List<Long> actual = new ArrayList<>();
                boolean javaError = false;
                try {
                    CronCursor cursor = new CronCursor(CronPattern.parse(c[0]), ZoneId.of(c[1]),
                            Instant.parse(c[2]).toEpochMilli(), null);
                    for (int k = 0; k < COUNT; k++) {
                        actual.add(cursor.next());
                    }
                } catch (IllegalArgumentException e) {
                    javaError = true;
                }
                if (nodeError) {
                    refused++;
                }
                if (!expected.equals(actual) || nodeError != javaError) {
                    mismatches.add(String.join(" | ", c) + "\n   node " + render(expected, c[1])
                            + (nodeError ? " error " + node.get("error").asText() : "")
                            + "\n   java " + render(actual, c[1]) + (javaError ? " error" : ""));
                }
            }
            assertEquals(List.of(), mismatches, mismatches.size() + " of " + cases.size() + " cases differ");
            assertTrue(refused > 0 && refused < cases.size() / 4, "a few refused patterns, got " + refused);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void hashedValuesAreRefused() {
        // cron-parser draws H anew on every computation, so no two iterations would agree on it
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> CronPattern.parse("H * * * *"));
    }

    /** Every pattern in some zones at some starts: a fixed seed keeps the case list the same on every run. */
    static List<String[]> cases() {
        Random random = new Random(20240310L);
        List<String[]> out = new ArrayList<>();
        for (String pattern : PATTERNS) {
            for (int k = 0; k < 4; k++) {
                String zone = ZONES[random.nextInt(ZONES.length)];
                String start = STARTS[random.nextInt(STARTS.length)];
                out.add(new String[] {pattern, zone, start});
            }
        }
        // the DST-prone patterns in every DST zone at every start near a change
        String[] dstPatterns = {"30 2 * * *", "0 2 * * *", "30 1 * * *", "* 2 * * *", "0 */2 * * *",
            "0 1-3 * * *", "30 30 2 * * *", "0 0 * * *", "0 30 * * * *", "0 3 * * *"};
        String[] dstZones = {"America/New_York", "Europe/London", "Australia/Sydney", "Australia/Lord_Howe",
            "America/Sao_Paulo", "Pacific/Chatham"};
        for (String pattern : dstPatterns) {
            for (String zone : dstZones) {
                out.add(new String[] {pattern, zone, STARTS[random.nextInt(8)]});
            }
        }
        return out;
    }

    private static String render(List<Long> times, String zone) {
        List<String> out = new ArrayList<>();
        for (long t : times) {
            out.add(Instant.ofEpochMilli(t).atZone(ZoneId.of(zone)).toOffsetDateTime().toString());
        }
        return out.toString();
    }
}
