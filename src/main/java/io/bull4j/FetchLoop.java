package io.bull4j;

import io.bull4j.internal.redis.Await;
import io.bull4j.internal.redis.DedicatedConnection;
import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveManyToActive;
import io.bull4j.internal.script.MoveManyToFinished;
import io.bull4j.internal.script.MoveToActive;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScoredValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The worker's fetch thread. With a free slot it takes a job ({@code moveToActive}), and when that call reports
 * more jobs ready, it fills its other free slots in one more call ({@code moveManyToActive}). When the queue is
 * empty it blocks on the marker ({@code BZPOPMIN}) on a connection of its own, until a producer signals a job or
 * the next delayed job is due. No busy polling: an idle worker makes one blocking call per drainDelay.
 */
final class FetchLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(FetchLoop.class);
    private static final long ERROR_PAUSE_MS = 1000;
    /** A delayed job due within this many ms is waited for locally, not on the marker. */
    private static final long SHORT_WAIT_MS = 2;
    /** The most jobs one moveManyToActive call takes, which bounds how long one call holds Redis. */
    private static final int MORE_PER_CALL = MoveManyToFinished.MAX;

    private final QueueContext ctx;
    private final WorkerOptions opts;
    private final Slots slots;
    private final JobRunner runner;
    private final ListenerBus bus;
    private final Worker.Tokens tokens;
    private final String clientName;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Object pauseLock = new Object();
    private final Object blockingLock = new Object();
    private volatile boolean stopping;
    private volatile long drainedHint = -1;
    /** Failed fetches since the last one that worked (the fetch thread's own): only the first is a WARN. */
    private int failuresInARow;
    /** Whether the last marker wait was cut by a pause or stop (the fetch thread's own, or manual takers' in turn). */
    private boolean markerCallCut;
    /** Whether {@link #run()} started: only a running loop keeps a connection for getWorkers() to list. */
    private volatile boolean looping;
    /** The error that ended the loop, or null. */
    private volatile Throwable died;
    /** The tokens of the fetch sent and not yet answered (the fetch thread's own): see recoverLostFetch. */
    private List<String> unanswered = List.of();
    private volatile boolean paused;
    /** While ctx.now() is before this, the queue's rate limit is reached: no fetch is made (0: not limited). */
    private volatile long limitUntil;
    private DedicatedConnection blocking; // guarded by blockingLock

    FetchLoop(QueueContext ctx, WorkerOptions opts, Slots slots, JobRunner runner, ListenerBus bus,
              Worker.Tokens tokens) {
        this.ctx = ctx;
        this.opts = opts;
        this.slots = slots;
        this.runner = runner;
        this.bus = bus;
        this.tokens = tokens;
        String base64 = Base64.getEncoder().encodeToString(ctx.name().getBytes(StandardCharsets.UTF_8));
        // the client name BullMQ's getWorkers() looks for
        this.clientName = ctx.keys.prefix() + ":" + base64 + (opts.name() != null ? ":w:" + opts.name() : "");
    }

    /** A job's finish found the queue empty: the next fetch blocks on the marker first (-1: no hint). */
    void queueDrained(long nextDelayedMs) {
        drainedHint = nextDelayedMs;
    }

    /** A fetch or a processor found the rate limit reached for another {@code ms}: wait it out, then fetch. */
    void rateLimited(long ms) {
        if (ms > 0) {
            // + 1: PTTL rounds down, and Redis keeps a key through the millisecond it expires in; a fetch sent at
            // the end of the wait then never finds the limiter key still there
            limitUntil = Math.max(limitUntil, ctx.now() + ms + 1);
        }
    }

    @Override
    public void run() {
        looping = true;
        boolean drained = false;
        long nextDelayed = 0;
        try {
            while (!stopping) {
                keepPresence();
                if (!awaitResumed() || !slots.acquire()) {
                    break;
                }
                boolean handedOff = false;
                try {
                    if (paused) {
                        continue; // paused while we waited for a slot: give it back and park
                    }
                    if (waitForRateLimit()) {
                        drained = false; // the window ended: ask at once, as BullMQ does
                        drainedHint = -1;
                    }
                    if (stopping || paused) {
                        continue;
                    }
                    long hint = drainedHint;
                    if (hint >= 0) {
                        drainedHint = -1;
                        if (!drained) {
                            bus.emit(WorkerListener::onDrained);
                        }
                        drained = true;
                        nextDelayed = hint;
                    }
                    if (drained) {
                        markerCallCut = false;
                        boolean signalled = waitForJob(nextDelayed);
                        if (stopping || paused) {
                            if (signalled) {
                                pokeMarker(); // the ready signal we took is put back, for the other workers
                            } else if (markerCallCut) {
                                handBackIfReady(); // the cut call may have taken one whose answer never came
                            }
                            continue;
                        }
                    }
                    String token = tokens.next();
                    drainedHint = -1; // this fetch's answer is newer than a hint a finish gave before it
                    long sent = System.nanoTime();
                    unanswered = List.of(token);
                    FetchedJob f = ctx.await(fetchCall(token), "moveToActive");
                    unanswered = List.of();
                    if (failuresInARow > 0) {
                        log.info("fetching works again on queue {} after {} failed tries", ctx.name(), failuresInARow);
                        failuresInARow = 0;
                    }
                    if (f.rateLimitMs() > 0) {
                        rateLimited(f.rateLimitMs());
                        drained = false;
                    } else if (f.isPresent()) {
                        drained = false;
                        runner.dispatch(f, token, sent);
                        handedOff = true;
                        // nothing else was ready: the fetch already said what an empty fetch now would answer
                        long none = f.drainedNextDelayedMs() >= 0 ? f.drainedNextDelayedMs()
                                : fetchMore(f.readyCount());
                        if (none >= 0) {
                            bus.emit(WorkerListener::onDrained);
                            drained = true;
                            nextDelayed = none;
                        }
                    } else {
                        if (!drained) {
                            bus.emit(WorkerListener::onDrained);
                        }
                        drained = true;
                        nextDelayed = f.nextDelayedMs();
                    }
                } catch (RuntimeException e) {
                    if (stopping) {
                        break;
                    }
                    // one WARN with its stack trace per outage, not one a second (each listener still hears each)
                    if (failuresInARow++ == 0) {
                        log.warn("fetch failed on queue {}; retrying every {} ms (repeats at DEBUG)", ctx.name(),
                                ERROR_PAUSE_MS, e);
                    } else {
                        log.debug("fetch failed on queue {} again ({} in a row)", ctx.name(), failuresInARow, e);
                    }
                    bus.emit(l -> l.onError(e));
                    resetBlocking();
                    pauseAfterError();
                    if (!unanswered.isEmpty() && e instanceof RedisOutcomeUnknownException && !stopping) {
                        runner.recoverLostFetch(unanswered);
                    }
                    unanswered = List.of();
                } finally {
                    if (!handedOff) {
                        slots.release();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // not a Redis fault (those are retried above): a bug or a library mismatch (a NoClassDefFoundError).
            // The loop cannot go on; the worker says so (isRunning false, Spring's health DOWN) instead of
            // looking alive while it takes no job
            died = e;
            log.error("the fetch loop of the worker on queue {} ended on an unexpected error; this worker takes no "
                    + "more jobs: close it and create it again", ctx.name(), e);
            bus.emit(l -> l.onError(e));
        } finally {
            resetBlocking();
            stopped.countDown();
        }
    }

    /** Whether the loop ended on an unexpected error (see {@link #run()}), not by a stop. */
    boolean hasDied() {
        return died != null;
    }

    /**
     * Fills more free slots at once when the last fetch said that jobs were ready: one call takes up to one job per
     * slot (moveManyToActive; BullMQ keeps several fetches in flight instead, each a script call of its own), and
     * the slots it does not fill are given back, also when the call fails. Returns -1 when every slot got a job,
     * else the next delayed time that the empty take reported (0 if none).
     */
    private long fetchMore(long ready) {
        if (ready <= 0 || paused || stopping) {
            return -1;
        }
        int n = slots.tryAcquire((int) Math.min(ready, MORE_PER_CALL));
        if (n == 0) {
            return -1;
        }
        List<String> callTokens = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            callTokens.add(tokens.next());
        }
        int handedOff = 0;
        long none = -1;
        try {
            drainedHint = -1; // as for a single fetch
            long sent = System.nanoTime();
            unanswered = callTokens;
            List<FetchedJob> taken = ctx.await(moreCall(callTokens), "moveManyToActive");
            unanswered = List.of();
            for (FetchedJob f : taken) {
                if (f.isPresent()) {
                    runner.dispatch(f, callTokens.get(handedOff++), sent);
                } else if (f.rateLimitMs() > 0) {
                    rateLimited(f.rateLimitMs()); // not drained: the loop waits for the window instead
                } else {
                    none = f.nextDelayedMs();
                }
            }
        } finally {
            slots.release(n - handedOff);
        }
        return none;
    }

    private CompletableFuture<List<FetchedJob>> moreCall(List<String> callTokens) {
        return MoveManyToActive.run(ctx.scripts(), ctx.keys, ctx.now(), callTokens, opts.lockDuration().toMillis(),
                opts.name(), opts.limiterMax(), limiterDurationMs());
    }

    private long limiterDurationMs() {
        return opts.limiterDuration() == null ? 0 : opts.limiterDuration().toMillis();
    }

    private CompletableFuture<FetchedJob> fetchCall(String token) {
        return MoveToActive.run(ctx.scripts(), ctx.keys, ctx.now(), token, opts.lockDuration().toMillis(),
                opts.name(), opts.limiterMax(), limiterDurationMs());
    }

    /**
     * Sleeps (no Redis calls) until the rate limit's window ends, at most maximumRateLimitDelay at a time so that
     * due delayed jobs still get promoted, as BullMQ; a pause or stop ends the wait. Returns whether it waited.
     */
    private boolean waitForRateLimit() throws InterruptedException {
        long until = limitUntil;
        if (until == 0) {
            return false;
        }
        long waitMs = Math.min(until - ctx.now(), opts.maximumRateLimitDelay().toMillis());
        if (waitMs > 0) {
            synchronized (pauseLock) {
                if (!stopping && !paused) {
                    pauseLock.wait(waitMs);
                }
            }
        }
        if (limitUntil == until) {
            limitUntil = 0; // a later limit reported meanwhile is kept for the next round
        }
        return true;
    }

    /**
     * Blocks on the marker until a job may be ready: at most drainDelay, or until the next delayed job is due. A
     * popped delay marker (member "1") that names a later time only moves that time: no fetch is made for it.
     * Returns whether it took a marker that says a job is ready now (false on a timeout or a due time reached).
     */
    private boolean waitForJob(long nextDelayedMs) throws InterruptedException {
        while (true) {
            long timeoutMs = opts.drainDelay().toMillis();
            if (nextDelayedMs > 0) {
                long untilDue = nextDelayedMs - ctx.now();
                if (untilDue <= 0) {
                    return false;
                }
                if (untilDue <= SHORT_WAIT_MS) {
                    // cheaper than a blocking call, a timer and the write that ends it; a job added meanwhile
                    // waits at most this long
                    Thread.sleep(untilDue);
                    return false;
                }
                timeoutMs = Math.min(timeoutMs, untilDue);
            }
            ScoredValue<String> popped = blockOnMarker(nextDelayedMs > 0, timeoutMs);
            if (popped == null || !popped.hasValue()) {
                return false;
            }
            if (!"1".equals(popped.getValue())) {
                return true;
            }
            long due = (long) popped.getScore();
            if (due <= ctx.now() + 1) {
                return true;
            }
            nextDelayedMs = nextDelayedMs > 0 ? Math.min(nextDelayedMs, due) : due;
        }
    }

    /** One BZPOPMIN; null on timeout, or when pausing or stopping. */
    private ScoredValue<String> blockOnMarker(boolean forDelayedJob, long timeoutMs) {
        DedicatedConnection c = blockingConnection();
        if (c == null) {
            return null;
        }
        double seconds = Math.max(timeoutMs, 1) / 1000.0;
        // Redis notices a blocking timeout only on its cron tick (every 100 ms at hz 10): for a delayed job, a
        // local timer writes the ready marker when the job is due, which wakes the blocked fetch at once
        ScheduledFuture<?> wake = forDelayedJob && timeoutMs < opts.drainDelay().toMillis()
                ? ctx.link.timer().schedule(this::pokeMarker, timeoutMs, TimeUnit.MILLISECONDS) : null;
        try {
            KeyValue<String, ScoredValue<String>> kv = Await.result(c.commands().bzpopmin(seconds,
                    ctx.keys.marker()), Duration.ofMillis(timeoutMs).plus(ctx.link.commandTimeout()), "BZPOPMIN");
            return kv == null || !kv.hasValue() ? null : kv.getValue();
        } catch (RedisException e) {
            if (stopping || paused || replaced(c)) {
                markerCallCut = true;
                return null; // cut on purpose (a pause, even one resumed since, or a stop)
            }
            c.noticeError(e); // READONLY: the server became a replica; the link reconnects
            // a blocking call that outlives its timeout is stuck (e.g. after a failover): start afresh
            throw e;
        } finally {
            if (wake != null) {
                wake.cancel(false);
            }
        }
    }

    private void pokeMarker() {
        ctx.redis().zadd(ctx.keys.marker(), 0, "0"); // fire and forget: a lost poke only costs the cron delay
    }

    /**
     * After a pause or stop cut a BZPOPMIN short: Redis may have popped the ready marker for this worker and the
     * answer been lost with the closed connection, so while jobs are ready the marker is put back, or the other
     * workers would sleep until their drainDelay ends. Best effort (the stop may be closing the connection).
     */
    private void handBackIfReady() {
        try {
            if (ctx.await(ctx.redis().llen(ctx.keys.waitList()), "LLEN") > 0
                    || ctx.await(ctx.redis().zcard(ctx.keys.prioritized()), "ZCARD") > 0) {
                pokeMarker();
            }
        } catch (RuntimeException e) {
            log.debug("could not hand the ready marker back on queue {}", ctx.name(), e);
        }
    }

    /**
     * The blocking connection, or null when pausing or stopping. Handed out under the same lock that
     * {@link #resetBlocking()} takes, so a pause or stop either is seen here or closes the connection we got. A new
     * one is opened outside the lock, so that a pause or stop never waits for a connect.
     */
    private DedicatedConnection blockingConnection() {
        synchronized (blockingLock) {
            if (stopping || paused) {
                return null;
            }
            if (blocking != null) {
                return blocking;
            }
        }
        adopt(ctx.link.openDedicated(clientName), false);
        synchronized (blockingLock) {
            return stopping || paused ? null : blocking;
        }
    }

    /**
     * Makes {@code c} the blocking connection unless one is there already, or the loop stops (or, unless
     * {@code whilePaused}, pauses) meanwhile; else closes it.
     */
    private void adopt(DedicatedConnection c, boolean whilePaused) {
        synchronized (blockingLock) {
            if (!stopping && (whilePaused || !paused) && blocking == null) {
                blocking = c;
                return;
            }
        }
        c.close();
    }

    /** Whether {@code c} is no longer the blocking connection: a pause or stop closed it. */
    private boolean replaced(DedicatedConnection c) {
        synchronized (blockingLock) {
            return blocking != c;
        }
    }

    /**
     * Opens the named blocking connection when there is none (a pause or an error closed it, or the loop just
     * started): its name is how getWorkers() lists this worker, on either side, also while it is busy or paused, as
     * BullMQ's worker keeps its blocking connection from its start. Best effort: a failure is the next fetch's to
     * report.
     */
    private void keepPresence() {
        synchronized (blockingLock) {
            if (stopping || blocking != null) {
                return;
            }
        }
        try {
            adopt(ctx.link.openDedicated(clientName), true);
        } catch (RuntimeException e) {
            log.debug("could not open the blocking connection of queue {}", ctx.name(), e);
        }
    }

    /** Closing the blocking connection ends a BZPOPMIN in flight at once. */
    private void resetBlocking() {
        DedicatedConnection c;
        synchronized (blockingLock) {
            c = blocking;
            blocking = null;
        }
        if (c != null) {
            c.close();
        }
    }

    private boolean awaitResumed() throws InterruptedException {
        synchronized (pauseLock) {
            while (paused && !stopping) {
                pauseLock.wait();
            }
        }
        return !stopping;
    }

    private void pauseAfterError() throws InterruptedException {
        synchronized (pauseLock) {
            if (!stopping) {
                pauseLock.wait(ERROR_PAUSE_MS);
            }
        }
    }

    boolean isPaused() {
        return paused;
    }

    void pause() {
        if (paused) {
            return; // already paused, as BullMQ's pause: no new connection nor thread per call
        }
        paused = true;
        resetBlocking(); // ends a BZPOPMIN in flight
        if (looping) {
            // still listed while paused, even while the loop waits for a slot; not on the caller's thread (a connect)
            Thread presence = new Thread(this::keepPresence, "bull4j-presence-" + ctx.name());
            presence.setDaemon(true);
            presence.start();
        }
        synchronized (pauseLock) {
            pauseLock.notifyAll(); // ends a rate-limit wait at once
        }
    }

    void resume() {
        synchronized (pauseLock) {
            paused = false;
            pauseLock.notifyAll();
        }
    }

    void stop() {
        stopping = true;
        slots.stop();
        synchronized (pauseLock) {
            pauseLock.notifyAll();
        }
        resetBlocking();
    }

    /** A lock, not a monitor: its callers may be virtual threads, which a monitor held over a BZPOPMIN pins (21–23). */
    private final java.util.concurrent.locks.ReentrantLock manualLock = new java.util.concurrent.locks.ReentrantLock();

    /**
     * Manual processing (a worker without a processor): takes one job under {@code token}. With {@code block} and
     * none ready, waits on the marker up to the drain delay (or the next delayed job's due time) and asks once more.
     * Nothing while paused or closed. Callers on several threads take turns on the one blocking connection.
     */
    FetchedJob takeOne(String token, boolean block) throws InterruptedException {
        if (paused || stopping) {
            return FetchedJob.NONE;
        }
        FetchedJob f = ctx.await(fetchCall(token), "moveToActive");
        if (f.isPresent() || !block || f.rateLimitMs() > 0) {
            return f;
        }
        manualLock.lockInterruptibly();
        try {
            markerCallCut = false;
            boolean woken = waitForJob(f.nextDelayedMs());
            if (paused || stopping) {
                if (woken || markerCallCut) {
                    handBackIfReady(); // a wake-up taken, or maybe taken, for a fetch that will not be made
                }
                return FetchedJob.NONE;
            }
        } finally {
            manualLock.unlock();
        }
        return ctx.await(fetchCall(token), "moveToActive");
    }

    boolean awaitStopped(Duration timeout) throws InterruptedException {
        return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
