package io.bull4j;

import io.bull4j.internal.script.CleanJobsInSet;
import io.bull4j.internal.script.Drain;
import io.bull4j.internal.script.GetCounts;
import io.bull4j.internal.script.GetJobs;
import io.bull4j.internal.script.MoveJobsToWait;
import io.bull4j.internal.script.Obliterate;
import io.bull4j.internal.script.Pause;
import io.bull4j.internal.script.RemoveJob;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The administration half of {@link Queue}: counts, listings, pause, removal and bulk moves. Stateless. */
final class QueueAdmin {
    /** BullMQ's default order for getJobs and getJobCounts when no state is named (paused is not among them). */
    static final List<JobState> ALL_STATES = List.of(JobState.ACTIVE, JobState.COMPLETED, JobState.DELAYED,
            JobState.FAILED, JobState.PRIORITIZED, JobState.WAITING, JobState.WAITING_CHILDREN);
    /** Ids per clean call, as BullMQ pages it. */
    static final int CLEAN_PAGE = 10_000;
    /** Jobs per obliterate call. */
    static final int OBLITERATE_BATCH = 1000;

    private final QueueContext ctx;

    QueueAdmin(QueueContext ctx) {
        this.ctx = ctx;
    }

    Map<JobState, Long> counts(Collection<JobState> states) {
        List<Long> all = ctx.await(GetCounts.run(ctx.scripts(), ctx.keys), "getJobCounts");
        Map<JobState, Long> out = new LinkedHashMap<>();
        for (JobState s : states) {
            long n = 0;
            for (String key : keyNames(s)) {
                n += all.get(GetCounts.STATES.indexOf(key));
            }
            out.put(s, n);
        }
        return out;
    }

    List<Job> jobs(Collection<JobState> states, long start, long end, boolean asc) {
        List<String> keyNames = new ArrayList<>();
        states.forEach(s -> keyNames.addAll(keyNames(s)));
        List<List<GetJobs.Found>> found = ctx.await(GetJobs.run(ctx.scripts(), ctx.keys, start, end, asc,
                keyNames), "getJobs");
        // a job that moved between states during the read is listed once, as BullMQ does
        Set<String> seen = new HashSet<>();
        List<Job> jobs = new ArrayList<>();
        found.forEach(list -> list.forEach(f -> {
            if (seen.add(f.id())) {
                jobs.add(new Job(ctx, f.id(), f.fields(), null));
            }
        }));
        return jobs;
    }

    void pause(boolean pause) {
        ctx.await(Pause.run(ctx.scripts(), ctx.keys, pause), pause ? "pause" : "resume");
    }

    boolean isPaused() {
        return ctx.await(ctx.redis().hexists(ctx.keys.meta(), "paused"), "isPaused");
    }

    boolean remove(String jobId, boolean removeChildren) {
        return ctx.await(RemoveJob.run(ctx.scripts(), ctx.keys, jobId, removeChildren), "remove");
    }

    void drain(boolean delayed) {
        ctx.await(Drain.run(ctx.scripts(), ctx.keys, delayed), "drain");
    }

    List<String> clean(Duration grace, int limit, JobState state) {
        long cutoff = ctx.now() - grace.toMillis();
        long max = limit == 0 ? Long.MAX_VALUE : limit;
        int page = (int) Math.min(CLEAN_PAGE, max);
        String key = state == JobState.WAITING ? "wait" : state.wireName();
        List<String> removed = new ArrayList<>();
        while (removed.size() < max) {
            int ask = (int) Math.min(page, max - removed.size()); // never more than the limit in all
            List<String> ids = ctx.await(CleanJobsInSet.run(ctx.scripts(), ctx.keys, key, cutoff, ask), "clean");
            removed.addAll(ids);
            if (ids.size() < ask) {
                break;
            }
        }
        return removed;
    }

    void obliterate(boolean force) {
        pause(true);
        while (ctx.await(Obliterate.run(ctx.scripts(), ctx.keys, OBLITERATE_BATCH, force), "obliterate")) {
            // each call deletes one batch
        }
    }

    int moveToWait(String state, int count, String maxScore) {
        int moved = 0;
        MoveJobsToWait.Batch batch;
        do {
            batch = ctx.await(MoveJobsToWait.run(ctx.scripts(), ctx.keys, state, count, maxScore), state);
            moved += batch.moved();
        } while (batch.more());
        return moved;
    }

    /** The state key a public state names: waiting is the wait list, paused the legacy paused list. */
    private static List<String> keyNames(JobState s) {
        return s == JobState.WAITING ? List.of("wait") : List.of(s.wireName());
    }

    /** The states asked for, in order and once each, or all of them when none is named. */
    static List<JobState> checkStates(Collection<JobState> states) {
        ValidationException.check(states != null, "states", "must not be null");
        if (states.isEmpty()) {
            return ALL_STATES;
        }
        Set<JobState> unique = new LinkedHashSet<>();
        for (JobState s : states) {
            ValidationException.check(s != null, "states", "must not contain null");
            ValidationException.check(s != JobState.UNKNOWN, "states", "UNKNOWN is not a state jobs are kept in");
            unique.add(s);
        }
        List<JobState> ordered = new ArrayList<>(unique);
        if (hasNoOrder(states)) {
            // a Set.of or a HashSet has no order of its own (Set.of's changes from one JVM run to the next): the
            // states are walked in the order of a call that names none, so that the same call lists the same way
            ordered.sort(java.util.Comparator.comparingInt(s -> ALL_STATES.contains(s) ? ALL_STATES.indexOf(s)
                    : ALL_STATES.size()));
        }
        return ordered;
    }

    /**
     * Whether the collection is one of the JDK's sets without an order of their own: a HashSet (not a
     * LinkedHashSet) or a {@code Set.of}. Any other collection (a list, a LinkedHashSet, an EnumSet, Guava's
     * ImmutableSet, an unmodifiable view) keeps the order it gives.
     */
    private static boolean hasNoOrder(Collection<JobState> states) {
        return (states instanceof java.util.HashSet && !(states instanceof LinkedHashSet))
                || states.getClass().getName().startsWith("java.util.ImmutableCollections$Set");
    }

    static List<JobState> checkStates(JobState... states) {
        ValidationException.check(states != null, "states", "must not be null");
        return checkStates(Arrays.asList(states));
    }
}
