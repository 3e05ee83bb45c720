package io.bull4j;

/** Numbers as BullMQ writes them into job hashes and event fields, read as its Number() reads them. */
final class StoredNumbers {
    private StoredNumbers() {
    }

    /** The value as a long ("10" and "10.0" alike); 0 when absent, empty or not a number. */
    static long orZero(String v) {
        if (v == null || v.isEmpty()) {
            return 0;
        }
        try {
            return (long) Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
