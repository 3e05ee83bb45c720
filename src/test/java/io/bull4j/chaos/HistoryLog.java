package io.bull4j.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Every history line of a run directory, each tagged with the file (process) it came from, in time order. */
final class HistoryLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One history line. {@code proc} is the file's name without {@code .jsonl}. */
    record Event(String proc, String ev, long mono, long wall, JsonNode fields) {
        String job() {
            JsonNode j = fields.get("job");
            return j == null || j.isNull() ? null : j.asText();
        }

        String text(String field) {
            JsonNode v = fields.get(field);
            return v == null || v.isNull() ? null : v.asText();
        }
    }

    final List<Event> events;

    private HistoryLog(List<Event> events) {
        this.events = events;
    }

    static HistoryLog read(Path runDir) {
        List<Event> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(runDir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".jsonl")).toList()) {
                String proc = f.getFileName().toString().replace(".jsonl", "");
                for (String line : Files.readAllLines(f)) {
                    if (line.isBlank()) {
                        continue;
                    }
                    JsonNode n;
                    try {
                        n = JSON.readTree(line);
                    } catch (IOException e) {
                        // a kill -9 can cut the very last line short: that line never happened
                        continue;
                    }
                    all.add(new Event(proc, n.get("ev").asText(), n.get("mono").asLong(), n.get("wall").asLong(), n));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        all.sort(Comparator.comparingLong(Event::mono));
        return new HistoryLog(all);
    }

    Stream<Event> of(String ev) {
        return events.stream().filter(e -> e.ev().equals(ev));
    }
}
