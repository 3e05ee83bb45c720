package io.bull4j;

/**
 * Thrown by a processor to fail its job at once, whatever attempts remain. It is a control signal, so it is
 * cheap: no stack trace is captured. Node's bullmq treats it as its {@code UnrecoverableError}.
 */
public class UnrecoverableException extends Bull4jException {
    public UnrecoverableException(String message) {
        super(message, false);
    }
}
