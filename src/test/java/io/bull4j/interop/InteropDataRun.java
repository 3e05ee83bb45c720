package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.Processor;
import io.bull4j.Worker;
import io.bull4j.WorkerListener;
import io.bull4j.WorkerOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bull4j.interop.InteropKit.*;

/**
 * A bull4j worker that records what it ran: the jobs in the order their processor started, and each outcome.
 * Its processors mirror interop-data.mjs: {@link #ECHO} returns the data, {@link #SCRIPTED} does what the data
 * says ({@code progress}, {@code logs}, {@code fail}, {@code returns}), so either side can run the same jobs.
 */
final class InteropDataRun implements AutoCloseable {
    /** One finished attempt: the job as the worker handed it to the listener, and the result or error. */
    record Outcome(Job job, Object result, Throwable error) {
        boolean completed() {
            return error == null;
        }
    }

    static final Processor ECHO = Job::data;

    static final Processor SCRIPTED = job -> {
        JsonNode d = parse(job.dataJson());
        if (!d.isObject()) {
            return null;
        }
        for (JsonNode p : d.path("progress")) {
            job.updateProgress(JSON.treeToValue(p, Object.class));
        }
        for (JsonNode line : d.path("logs")) {
            job.log(line.asText());
        }
        if (d.path("fail").isTextual()) {
            throw new IllegalStateException(d.get("fail").asText());
        }
        return d.has("returns") ? d.get("returns") : null;
    };

    private final List<Job> started = new CopyOnWriteArrayList<>();
    private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
    private final Worker worker;

    private InteropDataRun(String queue, Processor processor, WorkerOptions options) {
        WorkerListener recorder = new WorkerListener() {
            @Override
            public void onCompleted(Job job, Object result) {
                outcomes.add(new Outcome(job, result, null));
            }

            @Override
            public void onFailed(Job job, Throwable error) {
                outcomes.add(new Outcome(job, null, error));
            }
        };
        this.worker = new Worker(queue, job -> {
            started.add(job);
            return processor.process(job);
        }, options, recorder);
    }

    /** Starts a worker at once (autorun). */
    static InteropDataRun start(String queue, Processor processor, WorkerOptions options) {
        return new InteropDataRun(queue, processor, options);
    }

    /** Runs a worker until {@code count} jobs finished, then closes it; returns the run for inspection. */
    static InteropDataRun runUntil(String queue, int count, Processor processor, WorkerOptions options)
            throws InterruptedException {
        InteropDataRun run = start(queue, processor, options);
        try {
            run.awaitOutcomes(count);
        } finally {
            run.close();
        }
        return run;
    }

    /** Waits until at least {@code count} attempts finished; returns them in finish order. */
    List<Outcome> awaitOutcomes(int count) throws InterruptedException {
        return awaitOutcomes(count, WAIT);
    }

    List<Outcome> awaitOutcomes(int count, Duration timeout) throws InterruptedException {
        eventually(timeout, () -> outcomes.size() >= count, count + " jobs finished by bull4j");
        return new ArrayList<>(outcomes);
    }

    /** The ids in the order their processor started. */
    List<String> startedIds() {
        return started.stream().map(Job::id).toList();
    }

    List<Job> started() {
        return new ArrayList<>(started);
    }

    List<Outcome> outcomes() {
        return new ArrayList<>(outcomes);
    }

    @Override
    public void close() {
        worker.close();
    }
}
