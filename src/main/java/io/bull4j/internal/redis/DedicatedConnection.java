package io.bull4j.internal.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.util.concurrent.CompletableFuture;

/** A connection owned by one component (a worker's blocking fetch), closed by that component. */
public final class DedicatedConnection implements AutoCloseable {
    private final RedisLink link;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private boolean closing; // guarded by this

    DedicatedConnection(RedisLink link, StatefulConnection<String, String> connection,
                        RedisClusterAsyncCommands<String, String> commands) {
        this.link = link;
        this.connection = connection;
        this.commands = commands;
    }

    public RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    StatefulConnection<String, String> connection() {
        return connection;
    }

    /** A reply from this connection's server says it is a replica now: see {@link RedisLink#reconnectAfterReadOnly()}. */
    public void noticeError(Throwable error) {
        if (Await.isReadOnlyReply(error)) {
            link.reconnectAfterReadOnly();
        }
    }

    /**
     * Closing fails any command in flight on it at once, which is how a blocked fetch is woken on close.
     * Idempotent: the owner and the link's own close may both call it.
     */
    @Override
    public void close() {
        closeAsync();
    }

    /**
     * Starts the close once; the link forgets the connection only when Lettuce has closed it, so that a link
     * closing meanwhile waits for it instead of closing it a second time (Lettuce warns on a second close).
     */
    CompletableFuture<Void> closeAsync() {
        synchronized (this) {
            if (closing) {
                return closed;
            }
            closing = true;
        }
        connection.closeAsync().whenComplete((v, e) -> {
            link.forget(this);
            closed.complete(null);
        });
        return closed;
    }
}
