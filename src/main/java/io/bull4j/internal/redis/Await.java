package io.bull4j.internal.redis;

import io.bull4j.Bull4jException;
import io.bull4j.RedisException;
import io.bull4j.RedisNotAppliedException;
import io.bull4j.RedisOutcomeUnknownException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for Redis futures within a bound and translates Lettuce's failures, once, into bull4j's types: what was
 * certainly not applied ({@link RedisNotAppliedException}), what was sent and may have been applied
 * ({@link RedisOutcomeUnknownException}), and error replies ({@link RedisException}).
 */
public final class Await {
    /** Lettuce's messages for a command refused before it was written (disconnected, or connection closed). */
    private static final String[] NOT_SENT = {"Currently not connected", "Connection is closed"};
    /**
     * Error replies with which Redis refuses a command before running it: loading its data after a restart, busy
     * with a long script, a replica after a failover, a cluster resharding or down, too few replicas to write,
     * writes stopped after a failed save (MISCONF: refused at a script's first write, and the state cannot change
     * while a script runs), a blocking call ended by a role change before it took anything (UNBLOCKED).
     */
    private static final String[] NOT_RUN = {"LOADING ", "BUSY ", "READONLY ", "TRYAGAIN ", "CLUSTERDOWN ",
        "MASTERDOWN ", "NOREPLICAS ", "MISCONF ", "UNBLOCKED "};
    /** How Redis 6.2 begins the reply of a script whose call failed; the call's own error follows after ": -". */
    private static final String SCRIPT_ERROR_62 = "ERR Error running script";
    /** The error the deadline guard (lua/include/deadline.lua) gives. */
    static final String LATE = "BULL4J_LATE";
    /** How much longer than its timeout a wait gives a bounded future to end on its own bound. */
    static final long BOUND_GRACE_MS = 10 * CallBounds.TICK_MS;

    private Await() {
    }

    /**
     * Waits for {@code stage}'s answer. An interrupt while waiting ends the wait as an unknown outcome (the command
     * was sent); an answer that is already there is returned even to an interrupted thread (the outcome is known),
     * and the interrupt flag is kept either way.
     */
    public static <T> T result(CompletionStage<T> stage, Duration timeout, String what) {
        try {
            // a bound of the same timeout (within) fires up to a tick later: the grace lets its own answer (a
            // failure held to the bound, or its timeout, which cancels the command and probes the connection)
            // arrive first, rather than a bare timeout that hides what happened
            return stage.toCompletableFuture().get(timeout.toMillis() + BOUND_GRACE_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            stage.toCompletableFuture().cancel(false);
            throw timedOut(what, timeout, e);
        } catch (ExecutionException e) {
            throw translate(e.getCause(), what);
        } catch (CancellationException e) {
            // cancelled by Lettuce (on a Lettuce before 6.7, the calls of a broken connection: InFlightOnDisconnect)
            throw translate(e, what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the command was sent and may still run: a caller must not take this as "not applied"
            throw new RedisOutcomeUnknownException(what + ": interrupted while waiting for Redis's answer; the "
                    + "command may still be applied", e, false);
        }
    }

    /**
     * A future that completes like {@code future}, translated, or at the latest after {@code budget} (plus at most
     * one {@link CallBounds} tick) with a {@link RedisOutcomeUnknownException}; then {@code onTimeout} runs (to
     * cancel the command in flight). With {@code holdUnknown}, for a script that carries a deadline of
     * {@code budget} (set before this is called): a transport failure with the command maybe written (a connection
     * dropped or reset) is reported only at the bound, once the deadline has passed. Redis may still read and run a
     * command from a connection that was closed under it (a frozen Redis reads its socket when it wakes), so
     * reported earlier, an add said to have failed could appear later.
     */
    public static <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration budget, String what,
                                                  Runnable onTimeout, boolean holdUnknown) {
        return bound(future, budget, what, onTimeout, holdUnknown);
    }

    private static <T> CompletableFuture<T> bound(CompletableFuture<T> future, Duration budget, String what,
                                                  Runnable onTimeout, boolean holdUnknownToDeadline) {
        CompletableFuture<T> bounded = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicReference<RuntimeException> held =
                new java.util.concurrent.atomic.AtomicReference<>();
        // armed on the JVM-wide timer (CallBounds): the bound fires no earlier than budget, at most a tick later
        CallBounds.Bound alarm = CallBounds.arm(budget.toMillis(), () -> {
            RuntimeException failed = held.get();
            if (failed != null) {
                bounded.completeExceptionally(failed);
            } else if (bounded.completeExceptionally(timedOut(what, budget, null))) {
                onTimeout.run();
            }
        });
        future.whenComplete((value, error) -> {
            if (error == null) {
                alarm.cancel();
                bounded.complete(value);
                return;
            }
            RuntimeException e = translate(error, what);
            if (holdUnknownToDeadline && e instanceof RedisOutcomeUnknownException
                    && !((RedisOutcomeUnknownException) e).isTimeout()) {
                held.set(new RedisOutcomeUnknownException(e.getMessage() + " (reported at the call's deadline, "
                        + "after which Redis refuses it)", e.getCause() != null ? e.getCause() : e, false));
                return; // the alarm reports it
            }
            alarm.cancel();
            bounded.completeExceptionally(e);
        });
        return bounded;
    }

    /** The same bound for a future from a command without a deadline of its own (reads, idempotent writes). */
    public static <T> CompletableFuture<T> within(CompletionStage<T> stage, Duration budget, String what) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        return bound(future, budget, what, () -> future.cancel(false), false);
    }

    private static RedisOutcomeUnknownException timedOut(String what, Duration timeout, Throwable cause) {
        return new RedisOutcomeUnknownException(what + ": no answer from Redis within " + timeout
                + "; the command may have been applied before its deadline, never after", cause, true);
    }

    /**
     * The TLS handshake's own reason (an untrusted or expired certificate, a host name mismatch), which Lettuce's
     * "Unable to connect" hides in its causes; empty when the failure was not TLS.
     */
    private static String tlsFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException) {
                return "; TLS handshake failed: " + c.getMessage();
            }
        }
        return "";
    }

    /**
     * Whether {@code t} (or a cause) is Redis's READONLY reply: the server is a replica, which after a failover
     * means the connection still leads to the old primary.
     */
    public static boolean isReadOnlyReply(Throwable t) {
        for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
            if (t instanceof io.lettuce.core.RedisCommandExecutionException
                    && isReadOnlyMessage(String.valueOf(t.getMessage()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * READONLY as a command's reply, or as Redis 6.2 reports it from inside a script ("ERR Error running script
     * ... -READONLY You can't write ..."): on a read-only replica no write of the script can have been applied.
     */
    static boolean isReadOnlyMessage(String message) {
        return message.startsWith("READONLY ")
                || (message.startsWith(SCRIPT_ERROR_62) && message.contains(": -READONLY "));
    }

    /** Maps a failure from a Redis future to a bull4j exception, leaving bull4j's own exceptions as they are. */
    public static RuntimeException translate(Throwable t, String what) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof Bull4jException) {
            return (Bull4jException) t;
        }
        if (t instanceof RedisCommandTimeoutException) {
            return new RedisOutcomeUnknownException(what + ": " + t.getMessage(), t, true);
        }
        if (t instanceof RedisConnectionException) {
            return new RedisNotAppliedException(what + ": Redis unreachable: " + t.getMessage() + tlsFailure(t), t);
        }
        String message = String.valueOf(t.getMessage());
        if (message.contains(LATE)) {
            return new RedisNotAppliedException(what + ": reached Redis after its deadline and was refused there "
                    + "before any write", t);
        }
        if (t instanceof io.lettuce.core.RedisCommandExecutionException) {
            for (String notRun : NOT_RUN) {
                // as a reply, or as Redis 6.2 reports a script's first write refused ("... -MISCONF ...")
                if (message.startsWith(notRun)
                        || (message.startsWith(SCRIPT_ERROR_62) && message.contains(": -" + notRun))) {
                    return new RedisNotAppliedException(what + ": refused by Redis before it ran: " + message, t);
                }
            }
            // an error reply: Redis ran the command, which refused before writing (bull4j's scripts check first)
            return new RedisException(what + ": " + message, t, false);
        }
        if (t instanceof io.lettuce.core.RedisException) {
            for (String notSent : NOT_SENT) {
                if (message.startsWith(notSent)) {
                    return new RedisNotAppliedException(what + ": not sent: " + message, t);
                }
            }
        }
        if (t instanceof CancellationException) {
            return new RedisOutcomeUnknownException(what + ": cancelled", t, false);
        }
        // anything else is the transport failing (connection reset, channel closed, an encoder or Netty error)
        // with the command written or about to be: Lettuce does not re-send it, but it may have been applied
        return new RedisOutcomeUnknownException(what + ": " + message, t, false);
    }
}
