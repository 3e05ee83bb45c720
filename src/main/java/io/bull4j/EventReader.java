package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.DedicatedConnection;
import io.bull4j.internal.redis.RedisLink;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The read loop of a {@link QueueEvents}: {@code XREAD BLOCK} on a dedicated connection, from the last entry it
 * handed on. A read that outlives its block time by a second is taken for a dead connection (the watchdog
 * BullMQ has too) and the connection is replaced; a failed read is retried after a pause. {@link #stop()} closes
 * the connection, which fails a blocked read at once.
 */
final class EventReader implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(EventReader.class);
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    private static final Duration WATCHDOG_MARGIN = Duration.ofSeconds(1);
    private static final long ERROR_PAUSE_MS = 1000;
    private static final int BATCH = 1000;

    private final RedisLink link;
    private final String eventsKey;
    private final String clientName;
    private final Duration blockTimeout;
    private final ObjectMapper mapper;
    private final Consumer<QueueEvent> sink;
    private final Consumer<Throwable> errors;
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Object connLock = new Object();
    private DedicatedConnection conn; // guarded by connLock
    private volatile String cursor;

    EventReader(RedisLink link, String eventsKey, String clientName, Duration blockTimeout, ObjectMapper mapper,
                Consumer<QueueEvent> sink, Consumer<Throwable> errors) {
        this.link = link;
        this.eventsKey = eventsKey;
        this.clientName = clientName;
        this.blockTimeout = blockTimeout;
        this.mapper = mapper;
        this.sink = sink;
        this.errors = errors;
    }

    RedisLink link() {
        return link;
    }

    void startAfter(String id) {
        cursor = id;
    }

    /** The id of the last entry handed on in full (all listeners ran), or the start position. */
    String cursor() {
        return cursor;
    }

    @Override
    public void run() {
        boolean failing = false;
        while (stopping.getCount() > 0) {
            // only stop() ends the loop: an interrupt flag a listener left set would fail every read (and the pause)
            Thread.interrupted();
            try {
                DedicatedConnection c = connection();
                if (c == null) {
                    break;
                }
                XReadArgs args = XReadArgs.Builder.block(blockTimeout.toMillis()).count(BATCH);
                List<StreamMessage<String, String>> batch = Await.result(
                        c.commands().xread(args, XReadArgs.StreamOffset.from(eventsKey, cursor)),
                        blockTimeout.plus(WATCHDOG_MARGIN), "XREAD " + eventsKey);
                failing = false;
                handOn(batch);
            } catch (RuntimeException e) {
                if (stopping.getCount() == 0) {
                    break;
                }
                if (link.isClosed()) {
                    // a shared connection closed before this QueueEvents: nothing can be read any more
                    log.warn("reading {} stops: its connection was closed (close a QueueEvents before the "
                            + "Bull4jConnection it uses)", eventsKey);
                    errors.accept(e);
                    break;
                }
                boolean watchdog = e instanceof RedisException && ((RedisException) e).isTimeout();
                if (failing) {
                    log.debug("reading {} failed again: {}", eventsKey, e.toString());
                } else {
                    log.warn("reading {} failed; reconnecting: {}", eventsKey, e.toString());
                }
                failing = true;
                dropConnection();
                errors.accept(e);
                if (!watchdog) {
                    pause();
                }
            }
        }
        dropConnection();
    }

    private void handOn(List<StreamMessage<String, String>> batch) {
        if (batch == null) {
            return;
        }
        for (StreamMessage<String, String> m : batch) {
            if (stopping.getCount() == 0) {
                return;
            }
            sink.accept(new QueueEvent(m.getId(), m.getBody(), mapper));
            cursor = m.getId();
        }
    }

    /** The entries after {@code id}, up to a batch, without blocking (on the shared connection). */
    List<QueueEvent> readAfter(String id) {
        List<StreamMessage<String, String>> batch = Await.result(link.commands().xread(
                XReadArgs.Builder.count(BATCH), XReadArgs.StreamOffset.from(eventsKey, id)),
                link.commandTimeout(), "XREAD " + eventsKey);
        List<QueueEvent> out = new ArrayList<>();
        if (batch != null) {
            batch.forEach(m -> out.add(new QueueEvent(m.getId(), m.getBody(), mapper)));
        }
        return out;
    }

    /** The open connection, opening one if needed; null once stopping. */
    private DedicatedConnection connection() {
        synchronized (connLock) {
            if (conn != null) {
                return conn;
            }
        }
        // opened outside the lock, so that stop() never waits for a connect
        DedicatedConnection fresh = link.openDedicated(clientName);
        synchronized (connLock) {
            if (stopping.getCount() > 0) {
                conn = fresh;
                return fresh;
            }
        }
        fresh.close();
        return null;
    }

    private void dropConnection() {
        DedicatedConnection c;
        synchronized (connLock) {
            c = conn;
            conn = null;
        }
        if (c != null) {
            c.close();
        }
    }

    private void pause() {
        try {
            stopping.await(ERROR_PAUSE_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            // not a stop signal (stop() counts down the latch): the flag is cleared and the loop goes on
        }
    }

    void stop() {
        synchronized (connLock) {
            stopping.countDown();
        }
        dropConnection();
    }
}
