package io.bull4j;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * A processor may return the future of an asynchronous call ({@code httpClient.sendAsync(...)}, a
 * {@code CompletableFuture}): the job is done when that future is, as BullMQ awaits a processor's Promise. Stored
 * as a bean instead, the future's flags would be the job's return value and its failure would be lost.
 */
final class AsyncResults {
    private AsyncResults() {
    }

    /**
     * The value {@code result} stands for: the outcome of a {@link CompletionStage} or {@link Future}, waited for on
     * this (the processor's) thread, so that a cancellation or a close's interrupt ends the wait as it would end
     * the processor; the future itself is left alone (it may be shared, a cache's, and BullMQ cannot cancel a
     * Promise either). A failed future throws its cause, which fails the attempt. Anything else is returned as is.
     */
    static Object await(Object result) throws Exception {
        Future<?> future;
        if (result instanceof CompletionStage<?> stage) {
            CompletableFuture<Object> cf = new CompletableFuture<>();
            stage.whenComplete((v, e) -> {
                if (e != null) {
                    cf.completeExceptionally(e);
                } else {
                    cf.complete(v);
                }
            });
            future = cf;
        } else if (result instanceof Future<?> f) {
            future = f;
        } else {
            return result;
        }
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw causeOf(e);
        }
    }

    private static Exception causeOf(ExecutionException e) {
        Throwable c = e.getCause();
        while (c instanceof CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof Error err) {
            throw err;
        }
        return c instanceof Exception ex ? ex : e;
    }
}
