package io.bull4j.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * One process's append-only history: a JSON object per line, {@code ev} names the event, {@code mono} is
 * {@link System#nanoTime()} (CLOCK_MONOTONIC on Linux, so comparable across processes of one machine, and
 * Node's {@code process.hrtime.bigint()} reads the same clock), {@code wall} is epoch microseconds for people.
 * Each line goes straight to the file without a user-space buffer, so a {@code kill -9} loses no written line:
 * the page cache survives the process.
 */
final class History implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final OutputStream out;

    History(Path file) {
        try {
            this.out = new FileOutputStream(file.toFile(), true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open history " + file, e);
        }
    }

    /** Appends {@code ev} with the given field pairs (name, value, name, value...). */
    synchronized void append(String ev, Object... fields) {
        ObjectNode line = JSON.createObjectNode();
        line.put("ev", ev);
        line.put("mono", System.nanoTime());
        line.put("wall", ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
        for (int i = 0; i + 1 < fields.length; i += 2) {
            line.putPOJO((String) fields[i], fields[i + 1]);
        }
        try {
            out.write((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to history", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
