package io.bull4j.internal.redis;

import io.bull4j.RedisException;
import io.bull4j.RedisNotAppliedException;
import io.bull4j.RedisOutcomeUnknownException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.*;

/** How Lettuce's failures map to what became of the command: not applied, outcome unknown, or an error reply. */
class AwaitTranslateTest {

    /**
     * A script's failure from a dropped connection is held to the call's bound; a caller that waits with the
     * command timeout (QueueContext.await, ScriptRunner.call) must still learn that failure, not a timeout: the
     * bound fires up to a tick after the timeout, and the wait used to end first, reporting "no answer from Redis
     * within ..." (isTimeout true: counted as a timeout, and the connection probed) with the reset's cause lost.
     */
    @Test
    void aHeldTransportFailureReachesAWaitOfTheCommandTimeoutAsItself() {
        java.time.Duration timeout = java.time.Duration.ofMillis(200);
        for (int i = 0; i < 5; i++) {
            java.util.concurrent.CompletableFuture<String> dropped = java.util.concurrent.CompletableFuture
                    .failedFuture(new io.lettuce.core.RedisException("Connection disconnected"));
            RedisOutcomeUnknownException e = assertThrows(RedisOutcomeUnknownException.class, () -> Await.result(
                    Await.within(dropped, timeout, "addJob", () -> { }, true), timeout, "addJob"));
            assertFalse(e.isTimeout(), e.getMessage());
            assertTrue(e.getMessage().contains("Connection disconnected"), e.getMessage());
        }
    }

    /**
     * A command Lettuce cancels (on a Lettuce before 6.7, InFlightOnDisconnect cancels those of a broken connection)
     * is an unknown outcome to a caller that waits on it, not a raw CancellationException that the callers' catch of
     * RedisException misses.
     */
    @Test
    void aCancelledCommandIsAnUnknownOutcomeToItsWaiter() {
        java.util.concurrent.CompletableFuture<String> cancelled = new java.util.concurrent.CompletableFuture<>();
        cancelled.cancel(false);
        RedisOutcomeUnknownException e = assertThrows(RedisOutcomeUnknownException.class,
                () -> Await.result(cancelled, java.time.Duration.ofSeconds(1), "BZPOPMIN"));
        assertFalse(e.isTimeout(), e.getMessage());
    }

    /** Lettuce before 6.7 re-sends a broken connection's calls: InFlightOnDisconnect is needed there only. */
    @Test
    void theCallsOfABrokenConnectionAreCancelledByUsBeforeLettuce67Only() {
        for (String old : new String[] {"6.6.0.RELEASE", "6.3.2.RELEASE", "5.3.7.RELEASE", null, "unknown"}) {
            assertTrue(InFlightOnDisconnect.resendsInFlight(old), String.valueOf(old));
        }
        for (String fixed : new String[] {"6.7.0.RELEASE", "6.8.2.RELEASE", "7.7.0.RELEASE", "7.0.0.BETA2"}) {
            assertFalse(InFlightOnDisconnect.resendsInFlight(fixed), fixed);
        }
    }

    @Test
    void aConnectionResetAfterTheSendIsOutcomeUnknown() {
        RuntimeException e = Await.translate(new IOException("Connection reset by peer"), "add");
        assertEquals(RedisOutcomeUnknownException.class, e.getClass(), e.toString());
        assertFalse(((RedisException) e).isTimeout());
        assertTrue(e.getMessage().startsWith("add: Connection reset by peer"), e.getMessage());
    }

    @Test
    void aClosedChannelOrAnyOtherTransportErrorIsOutcomeUnknown() {
        assertEquals(RedisOutcomeUnknownException.class,
                Await.translate(new CompletionException(new ClosedChannelException()), "add").getClass());
        assertEquals(RedisOutcomeUnknownException.class,
                Await.translate(new io.netty.channel.ChannelException("broken pipe"), "add").getClass());
        assertEquals(RedisOutcomeUnknownException.class,
                Await.translate(new io.lettuce.core.RedisException("Connection closed"), "add").getClass());
    }

    @Test
    void whatLettuceNeverSentIsNotApplied() {
        assertEquals(RedisNotAppliedException.class, Await.translate(
                new io.lettuce.core.RedisException("Currently not connected. Commands are rejected."), "add")
                .getClass());
        assertEquals(RedisNotAppliedException.class, Await.translate(
                new io.lettuce.core.RedisException("Connection is closed"), "add").getClass());
        assertEquals(RedisNotAppliedException.class,
                Await.translate(new RedisConnectionException("Unable to connect"), "add").getClass());
        assertEquals(RedisNotAppliedException.class, Await.translate(
                new RedisCommandExecutionException("ERR BULL4J_LATE deadline passed"), "add").getClass());
        // refused before running: a failed save stopped writes, a role change ended a blocking wait
        assertEquals(RedisNotAppliedException.class, Await.translate(new RedisCommandExecutionException(
                "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk"),
                "moveToFinished").getClass());
        // Redis 6.2 reports a script's refused first write inside its own error
        assertEquals(RedisNotAppliedException.class, Await.translate(new RedisCommandExecutionException(
                "ERR Error running script (call to f_87fc): @user_script:1: @user_script: 1: -MISCONF Redis is "
                + "configured to save RDB snapshots, but it's currently unable to persist to disk"),
                "moveToFinished").getClass());
        assertEquals(RedisException.class, Await.translate(new RedisCommandExecutionException(
                "ERR Error running script (call to f_87fc): @user_script:1: @user_script: 1: -OOM command not "
                + "allowed when used memory > 'maxmemory'."), "addJob").getClass(), "OOM stays an error reply");
        assertEquals(RedisNotAppliedException.class, Await.translate(new RedisCommandExecutionException(
                "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"),
                "BZPOPMIN").getClass());
    }

    @Test
    void anErrorReplyIsAPlainRedisExceptionAndATimeoutIsOutcomeUnknown() {
        RuntimeException reply = Await.translate(new RedisCommandExecutionException("ERR wrong number"), "add");
        assertEquals(RedisException.class, reply.getClass());
        RuntimeException timeout = Await.translate(new RedisCommandTimeoutException("timed out"), "add");
        assertEquals(RedisOutcomeUnknownException.class, timeout.getClass());
        assertTrue(((RedisException) timeout).isTimeout());
    }

    /**
     * READONLY from a replica, as a command's reply and as Redis 6.2 reports it from inside a script (7.0 starts the
     * message with READONLY): not applied, and the link's cue to reconnect.
     */
    @Test
    void readOnlyRepliesAreNotAppliedOnRedis62AndLater() {
        RedisCommandExecutionException in70 = new RedisCommandExecutionException(
                "READONLY You can't write against a read only replica. script: 87fc, on @user_script:378.");
        RedisCommandExecutionException in62 = new RedisCommandExecutionException("ERR Error running script (call to "
                + "f_87fc): @user_script:1: @user_script: 1: -READONLY You can't write against a read only replica.");
        for (RedisCommandExecutionException e : new RedisCommandExecutionException[] {in70, in62}) {
            assertEquals(RedisNotAppliedException.class, Await.translate(e, "addJob").getClass(), e.getMessage());
            assertTrue(Await.isReadOnlyReply(new CompletionException(e)), e.getMessage());
        }
        assertFalse(Await.isReadOnlyReply(new RedisCommandExecutionException("ERR Error running script: boom")));
    }
}
