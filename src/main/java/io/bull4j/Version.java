package io.bull4j;

/** bull4j's version, written to the queue's meta hash as {@code bull4j:<version>}. */
final class Version {
    static final String VALUE = "0.1.0";

    private Version() {
    }
}
