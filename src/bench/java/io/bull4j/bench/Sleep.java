package io.bull4j.bench;

/**
 * Pauses that pace the harness itself (settling after a flush, the idle window, the quiet-machine probe); no
 * outcome is ever waited for with a sleep.
 */
final class Sleep {
    private Sleep() {
    }

    static void ms(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
