package io.bull4j;

/**
 * Runs a close with the caller's interrupt flag cleared, and sets it again after: a close called on an interrupted
 * thread ({@code finally { worker.close(); }} after an InterruptedException, a task cancelled by shutdownNow) must
 * still wait for its jobs and release its threads and connections, which every interruptible wait would skip.
 * An interrupt that arrives during the close still ends its waits.
 */
final class Uninterrupted {
    private Uninterrupted() {
    }

    static void run(Runnable close) {
        boolean interrupted = Thread.interrupted();
        try {
            close.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
