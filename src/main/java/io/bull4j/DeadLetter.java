package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.codec.Json;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where a dead letter came from (bull4j only): the record a worker with a
 * {@link WorkerOptions.Builder#deadLetterQueue dead-letter queue} writes on the copy of a job that failed for good.
 *
 * <pre>{@code
 * try (Queue dlq = new Queue("emails-dead", queueOptions)) {
 *     for (Job letter : dlq.getJobs(JobState.WAITING)) {
 *         DeadLetter why = letter.deadLetter();
 *         log.warn("{} job {} failed: {}", why.queue(), why.jobId(), why.failedReason());
 *     }
 * }
 * }</pre>
 *
 * <p>An immutable value; thread-safe.
 */
public final class DeadLetter {
    private final String queue;
    private final String jobId;
    private final String failedReason;
    private final int attemptsMade;
    private final Instant failedOn;
    private final List<String> stacktrace;
    private final String optsJson;

    private DeadLetter(JsonNode n) {
        this.queue = n.path("queue").asText();
        this.jobId = n.path("jobId").asText();
        this.failedReason = n.path("failedReason").asText(null);
        this.attemptsMade = n.path("attemptsMade").asInt();
        this.failedOn = Instant.ofEpochMilli(n.path("failedOn").asLong());
        List<String> stack = new ArrayList<>();
        n.path("stacktrace").forEach(e -> stack.add(e.asText()));
        this.stacktrace = Collections.unmodifiableList(stack);
        this.optsJson = n.path("opts").asText("{}");
    }

    /** The record stored in a dead letter's {@code deadLetter} field, or null when the text is not one. */
    static DeadLetter parse(String json) {
        if (json == null) {
            return null;
        }
        JsonNode n;
        try {
            n = Json.tree(json);
        } catch (RuntimeException e) {
            return null;
        }
        return n != null && n.isObject() && n.hasNonNull("queue") && n.hasNonNull("jobId") ? new DeadLetter(n) : null;
    }

    /** {@return the name of the queue the job failed in} */
    public String queue() {
        return queue;
    }

    /** {@return the failed job's id in that queue} */
    public String jobId() {
        return jobId;
    }

    /** {@return the failed reason of its last attempt} */
    public String failedReason() {
        return failedReason;
    }

    /** {@return the attempts it made} */
    public int attemptsMade() {
        return attemptsMade;
    }

    /** {@return when it failed for good} */
    public Instant failedOn() {
        return failedOn;
    }

    /** {@return the stack traces of its failed attempts, oldest first} */
    public List<String> stacktrace() {
        return stacktrace;
    }

    /** The failed job's options as stored, for a replay. */
    String optsJson() {
        return optsJson;
    }

    @Override
    public String toString() {
        return "DeadLetter{queue=" + queue + ", jobId=" + jobId + ", failedReason=" + failedReason
                + ", attemptsMade=" + attemptsMade + ", failedOn=" + failedOn + "}";
    }
}
