package io.bull4j;

import io.bull4j.internal.script.FetchedJob;
import io.bull4j.internal.script.MoveManyToFinished;
import io.bull4j.internal.script.MoveToFinished;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends the finishes of a worker with concurrency above 1 together: a finish goes at once when none is in flight;
 * those that arrive while one is go together in the next call (up to {@link MoveManyToFinished#MAX}), sent as soon
 * as a call in flight answers, or earlier: as a second call once half the worker's slots are waiting (so that Redis
 * has that call to run while the JVM handles the first one's answer, instead of idling in between), and at once when
 * a whole batch is waiting (at high concurrency several full calls are then in flight, instead of all finishes
 * queueing behind one). No finish waits for company. A call with one finish is today's single moveToFinished; one
 * with several is moveManyToFinished, which applies each as that call would, with its own result: a refusal (a lost
 * lock) is that job's alone.
 */
final class FinishBatcher {
    private final QueueContext ctx;
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    /** Calls sent and not yet answered (each sends the next batch when it answers); guarded by this. */
    private int inFlight;

    /**
     * With one call in flight, the waiting finishes go as a second call once they are this many: half the slots (at
     * least 2). Each call then carries about half the slots, and the two alternate: at concurrency 10 this ran
     * 35-40 % more jobs a second than one call at a time, with the same Redis work per job (docs/benchmarks.md).
     * 0 where half the slots would fill a whole batch: there the full-batch rule alone applies, as before.
     */
    private final int secondCallAt;

    FinishBatcher(QueueContext ctx, int concurrency) {
        this.ctx = ctx;
        this.secondCallAt = concurrency / 2 < MoveManyToFinished.MAX ? Math.max(2, concurrency / 2) : 0;
    }

    /**
     * Whether this worker's finishes go in whole batches only (concurrency 40 and up): the answers then come about
     * 20 at a time, and are worth handing to whichever thread is free rather than waking one thread each.
     */
    boolean wholeBatches() {
        return secondCallAt == 0;
    }

    private record Pending(MoveToFinished.Request request, CompletableFuture<FetchedJob> result) {
    }

    /** The finish's outcome, as {@link MoveToFinished#run} would complete it. */
    CompletableFuture<FetchedJob> finish(MoveToFinished.Request r) {
        Pending p = new Pending(r, new CompletableFuture<>());
        List<Pending> batch;
        synchronized (this) {
            waiting.add(p);
            // behind a call in flight, a finish waits for company until a second call's worth is waiting; behind two,
            // until a whole batch is
            if (inFlight > 0 && waiting.size() < MoveManyToFinished.MAX
                    && (inFlight > 1 || secondCallAt == 0 || waiting.size() < secondCallAt)) {
                return p.result;
            }
            inFlight++;
            batch = take();
        }
        send(batch);
        return p.result;
    }

    /** The next batch: the waiting finishes whose caller still waits (one that gave up was cancelled). */
    private List<Pending> take() {
        List<Pending> batch = new ArrayList<>();
        while (batch.size() < MoveManyToFinished.MAX && !waiting.isEmpty()) {
            Pending p = waiting.poll();
            if (!p.result.isDone()) {
                batch.add(p);
            }
        }
        return batch;
    }

    private void send(List<Pending> batch) {
        while (batch.isEmpty()) {
            synchronized (this) {
                if (waiting.isEmpty()) {
                    inFlight--;
                    return;
                }
                batch = take();
            }
        }
        CompletableFuture<Void> sent;
        try {
            if (batch.size() == 1) {
                Pending only = batch.get(0);
                sent = MoveToFinished.run(ctx.scripts(), ctx.keys, only.request).handle((next, error) -> {
                    complete(only, next, error);
                    return null;
                });
            } else {
                List<Pending> many = batch;
                List<MoveToFinished.Request> requests = many.stream().map(Pending::request).toList();
                sent = MoveManyToFinished.run(ctx.scripts(), ctx.keys, requests).handle((outcomes, error) -> {
                    for (int i = 0; i < many.size(); i++) {
                        if (error != null) {
                            complete(many.get(i), null, error);
                        } else {
                            MoveManyToFinished.Outcome o = outcomes.get(i);
                            complete(many.get(i), o.next(), o.error());
                        }
                    }
                    return null;
                });
            }
        } catch (RuntimeException e) {
            batch.forEach(p -> p.result.completeExceptionally(e));
            sent = CompletableFuture.completedFuture(null);
        }
        sent.whenComplete((v, e) -> {
            List<Pending> next;
            synchronized (this) {
                if (waiting.isEmpty()) {
                    inFlight--;
                    return;
                }
                if (secondCallAt > 0 && inFlight > 1 && waiting.size() < secondCallAt) {
                    inFlight--; // another call is in flight: these go when it answers (or once enough wait)
                    return;
                }
                next = take();
            }
            send(next);
        });
    }

    private static void complete(Pending p, FetchedJob next, Throwable error) {
        if (error != null) {
            p.result.completeExceptionally(error);
        } else {
            p.result.complete(next);
        }
    }
}
