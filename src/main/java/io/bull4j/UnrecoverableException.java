package io.bull4j;

/**
 * Thrown by a processor to fail its job at once, whatever attempts remain. It is a control signal, so it is
 * cheap: no stack trace is captured. Node's bullmq treats it as its {@code UnrecoverableError}.
 *
 * <pre>{@code
 * Worker worker = new Worker("emails", job -> {
 *     Email email = job.data(Email.class);
 *     if (email.to() == null) throw new UnrecoverableException("no recipient");   // no retry
 *     return mailer.send(email);
 * });
 * }</pre>
 */
public class UnrecoverableException extends Bull4jException {
    /**
     * Creates one.
     *
     * @param message why the job cannot succeed; stored as its {@code failedReason}
     */
    public UnrecoverableException(String message) {
        super(message, false);
    }
}
