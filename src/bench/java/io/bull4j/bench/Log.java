package io.bull4j.bench;

import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Progress lines on stderr (stdout carries only the JSON result lines), stamped like the Node side's. */
final class Log {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private Log() {
    }

    static void log(String msg) {
        System.err.println("[" + LocalTime.now(ZoneOffset.UTC).format(TIME) + "] " + msg);
    }
}
