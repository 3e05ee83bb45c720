package io.bull4j.chaos;

/** Which worker the chaos runs against: bull4j in a child JVM, or the real bullmq 6.7.0 under Node. */
enum Engine {
    BULL4J("bull4j"), BULLMQ("BullMQ 6.7.0");

    final String label;

    Engine(String label) {
        this.label = label;
    }
}
