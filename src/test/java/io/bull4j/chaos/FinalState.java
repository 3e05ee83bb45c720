package io.bull4j.chaos;

import io.lettuce.core.api.sync.RedisCommands;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Where each job id sits in Redis at the end of a run (every state key of the queue is read). */
final class FinalState {
    static final List<String> LISTS = List.of("wait", "active", "paused");
    static final List<String> ZSETS = List.of("delayed", "prioritized", "waiting-children", "completed", "failed");
    static final String STALL_LIMIT_REASON = "job stalled more than allowable limit";

    final Map<String, Set<String>> statesById = new HashMap<>();
    final Map<String, String> failedReason = new HashMap<>();

    static FinalState read(RedisCommands<String, String> redis, String queue) {
        FinalState s = new FinalState();
        String base = "bull:" + queue + ":";
        for (String list : LISTS) {
            for (String id : redis.lrange(base + list, 0, -1)) {
                s.add(id, list);
            }
        }
        for (String zset : ZSETS) {
            for (String id : redis.zrange(base + zset, 0, -1)) {
                s.add(id, zset);
            }
        }
        for (String id : s.idsIn("failed")) {
            String reason = redis.hget(base + id, "failedReason");
            s.failedReason.put(id, reason == null ? "" : reason);
        }
        return s;
    }

    /** A state given directly (the checkers' own tests): id to its states, and failed ids' reasons. */
    static FinalState of(Map<String, Set<String>> states, Map<String, String> failedReasons) {
        FinalState s = new FinalState();
        states.forEach((id, st) -> st.forEach(x -> s.add(id, x)));
        s.failedReason.putAll(failedReasons);
        return s;
    }

    private void add(String id, String state) {
        statesById.computeIfAbsent(id, k -> new TreeSet<>()).add(state);
    }

    Set<String> idsIn(String state) {
        Set<String> ids = new TreeSet<>();
        statesById.forEach((id, states) -> {
            if (states.contains(state)) {
                ids.add(id);
            }
        });
        return ids;
    }

    boolean isTerminal(String id) {
        Set<String> st = statesById.get(id);
        return st != null && (st.contains("completed") || st.contains("failed"));
    }

    /** Jobs that are neither completed nor failed yet (what a drain waits for). */
    long unfinished() {
        return statesById.values().stream().filter(st -> !st.contains("completed") && !st.contains("failed")).count();
    }
}
