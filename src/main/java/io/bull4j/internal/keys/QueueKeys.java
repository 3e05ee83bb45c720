package io.bull4j.internal.keys;

import io.bull4j.ValidationException;

import java.util.Objects;
import java.util.Set;

/**
 * The one place Redis key names are built, following BullMQ's layout: every key of queue {@code Q} under prefix
 * {@code P} is {@code "P:Q:" + suffix}, and a job's hash is {@code "P:Q:" + jobId}. On Redis Cluster they
 * share one slot only when {@code P} or {@code Q} holds a hash tag ({@code "{bull}"}); see {@link #hashTag()}.
 */
public final class QueueKeys {
    public static final String DEFAULT_PREFIX = "bull";
    /**
     * The names that follow {@code P:Q:} for the queue's own keys (BullMQ's list, plus metrics and the legacy
     * meta-paused). A job id equal to one would make its job hash one of these keys.
     */
    public static final Set<String> RESERVED_NAMES = Set.of("active", "wait", "waiting-children", "paused", "id",
            "delayed", "prioritized", "stalled-check", "completed", "failed", "stalled", "repeat", "limiter", "meta",
            "events", "pc", "marker", "de", "metrics", "meta-paused");

    private final String prefix;
    private final String name;
    private final String base;
    /** The finish scripts' keys, built once: to completed, to failed (moveToFinished's order). */
    private volatile String[] finishToCompleted;
    private volatile String[] finishToFailed;

    public QueueKeys(String prefix, String name) {
        ValidationException.check(name != null && !name.isBlank(), "queueName", "must not be blank (was \""
                + name + "\")");
        ValidationException.check(name.indexOf(':') < 0, "queueName", "must not contain ':' (was \"" + name + "\")");
        checkPrefix(prefix);
        this.prefix = prefix;
        this.name = name;
        this.base = prefix + ":" + name + ":";
    }

    /**
     * A prefix is one key segment: with a ':' in it, {@code P:Q} would be read back as another prefix and queue
     * by BullMQ's tools (which split on ':').
     */
    public static String checkPrefix(String prefix) {
        ValidationException.check(prefix != null && !prefix.isBlank(), "prefix", "must not be blank (was \""
                + prefix + "\")");
        ValidationException.check(prefix.indexOf(':') < 0, "prefix", "must not contain ':' (was \"" + prefix + "\")");
        return prefix;
    }

    public String prefix() {
        return prefix;
    }

    public String name() {
        return name;
    }

    /** {@code P:Q:}, the string every key starts with; scripts build job keys from it. */
    public String base() {
        return base;
    }

    /** {@code P:Q}, the queue's qualified name. */
    public String qualifiedName() {
        return prefix + ":" + name;
    }

    /**
     * The KEYS of lua/moveToFinished.lua (and of moveManyToFinished.lua, with {@code completed} true), built once
     * per queue; callers must not change the array.
     */
    public String[] finishKeys(boolean completed) {
        String[] keys = completed ? finishToCompleted : finishToFailed;
        if (keys == null) {
            keys = new String[] {active(), completed ? completed() : failed(), events(), stalled(), meta(),
                    waitList(), prioritized(), priorityCounter(), delayed(), marker(), failed()};
            if (completed) {
                finishToCompleted = keys;
            } else {
                finishToFailed = keys;
            }
        }
        return keys;
    }

    public String waitList() { return base + "wait"; }
    public String active() { return base + "active"; }
    public String paused() { return base + "paused"; }
    public String prioritized() { return base + "prioritized"; }
    public String priorityCounter() { return base + "pc"; }
    public String delayed() { return base + "delayed"; }
    public String waitingChildren() { return base + "waiting-children"; }
    public String completed() { return base + "completed"; }
    public String failed() { return base + "failed"; }
    public String stalled() { return base + "stalled"; }
    public String stalledCheck() { return base + "stalled-check"; }
    public String limiter() { return base + "limiter"; }
    public String meta() { return base + "meta"; }
    public String events() { return base + "events"; }
    public String id() { return base + "id"; }
    public String marker() { return base + "marker"; }
    /** A deduplication window's owner: {@code de:<id>}. */
    public String dedup(String dedupId) { return base + "de:" + dedupId; }
    /** The add kept for when a deduplication owner finishes (keepLastIfActive): {@code dn:<id>}. */
    public String dedupNext(String dedupId) { return base + "dn:" + dedupId; }
    /** The job schedulers ZSET; {@code repeat():<id>} is a scheduler hash. */
    public String repeat() { return base + "repeat"; }
    /** The finished-job metrics hash of {@code type} ("completed" or "failed"): {@code metrics:<type>}. */
    public String metrics(String type) { return base + "metrics:" + type; }
    /** The per-minute data list of {@code metrics(type)}: {@code metrics:<type>:data}. */
    public String metricsData(String type) { return metrics(type) + ":data"; }

    public String scheduler(String schedulerId) { return base + "repeat:" + schedulerId; }

    public String job(String jobId) {
        return base + Objects.requireNonNull(jobId, "jobId");
    }

    public String lock(String jobId) {
        return job(jobId) + ":lock";
    }

    /** A request to cancel the job's running attempt (bull4j only; it expires on its own). */
    public String cancel(String jobId) {
        return job(jobId) + ":cancel";
    }

    public String logs(String jobId) {
        return job(jobId) + ":logs";
    }

    /**
     * The hash tag every key of this queue shares, or null when there is none. Only a tag inside
     * {@code prefix:name:} counts: one that a suffix or a job id could complete would spread the keys over slots.
     */
    public String hashTag() {
        return KeySlot.tagWithin(base);
    }

    /** The Redis Cluster slot of every key of this queue, when {@link #hashTag()} is not null. */
    public int slot() {
        return KeySlot.of(base);
    }

    /**
     * Refuses keys that Redis Cluster would spread over several slots, where a script touching two of them
     * fails with CROSSSLOT. Called when the connection is a Cluster, before anything is written.
     */
    public void requireSingleSlot() {
        if (hashTag() != null) {
            return;
        }
        throw new ValidationException("prefix", "on Redis Cluster all keys of a queue must share one hash slot, "
                + "but prefix \"" + prefix + "\" and queue name \"" + name + "\" give keys (\"" + base
                + "...\") without a hash tag. Put one in the prefix, e.g. prefix(\"{" + prefix + "}\") (a tag "
                + "shared by all queues), or in the queue name, e.g. \"{" + name + "}\" (one slot per queue); "
                + "producers and workers of the queue must use the same keys");
    }

    /** The key of a state's set or list, for the state names BullMQ's getters accept. */
    public String state(String state) {
        switch (state) {
            case "wait": case "waiting": return waitList();
            case "active": return active();
            case "paused": return paused();
            case "prioritized": return prioritized();
            case "delayed": return delayed();
            case "completed": return completed();
            case "failed": return failed();
            case "waiting-children": return waitingChildren();
            default: throw new ValidationException("state", "unknown state \"" + state + "\"");
        }
    }

    @Override
    public String toString() {
        return qualifiedName();
    }
}
