package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The flow add (lua/addFlow.lua): the jobs of whole flow trees, over any number of queues, in one script, parents
 * before children. Either every node is stored or, on a refusal, none.
 */
public final class AddFlow {
    static final LuaScript SCRIPT = LuaScript.load("addFlow");

    /** One node of a flow, as stored. */
    public static final class Node {
        final QueueKeys keys;
        final String id;
        final String name;
        final long timestamp;
        final String data;
        final String opts;
        final long delayMs;
        final int priority;
        final boolean lifo;
        public final String parentKey;
        final String parentJson;
        final boolean hasChildren;

        /**
         * @param parentKey the parent's job key, or null for a root without parent
         * @param parentJson BullMQ's {@code parent} field ({@code {"id", "queueKey"[, flag]}}), or null
         */
        public Node(QueueKeys keys, String id, String name, long timestamp, String data, String opts, long delayMs,
                    int priority, boolean lifo, String parentKey, String parentJson, boolean hasChildren) {
            this.keys = keys;
            this.id = id;
            this.name = name;
            this.timestamp = timestamp;
            this.data = data;
            this.opts = opts;
            this.delayMs = delayMs;
            this.priority = priority;
            this.lifo = lifo;
            this.parentKey = parentKey;
            this.parentJson = parentJson;
            this.hasChildren = hasChildren;
        }
    }

    /**
     * What the script did: per node, whether it was created (false: a job with that id existed and was linked to
     * its new parent); or, when {@code refusedCode} is not 0, nothing, because of the node at {@code refusedIndex}
     * (0-based in the list sent).
     */
    public static final class Result {
        /** Per node: its id, or the id of the job that deduplication kept instead. */
        public final List<String> ids;
        public final List<Boolean> created;
        public final long refusedCode;
        public final int refusedIndex;

        Result(List<String> ids, List<Boolean> created, long refusedCode, int refusedIndex) {
            this.ids = ids;
            this.created = created;
            this.refusedCode = refusedCode;
            this.refusedIndex = refusedIndex;
        }
    }

    private AddFlow() {
    }

    /** Stores the nodes, or none of them. */
    public static CompletableFuture<Result> run(ScriptRunner runner, Duration budget, long now,
                                                       List<Node> nodes) {
        List<String> args = new ArrayList<>(1 + nodes.size() * 12);
        args.add(Long.toString(now));
        for (Node n : nodes) {
            args.add(n.keys.base());
            args.add(n.id);
            args.add(n.name);
            args.add(Long.toString(n.timestamp));
            args.add(n.data);
            args.add(n.opts);
            args.add(Long.toString(n.delayMs));
            args.add(Integer.toString(n.priority));
            args.add(n.lifo ? "1" : "0");
            args.add(n.parentKey == null ? "" : n.parentKey);
            args.add(n.parentJson == null ? "" : n.parentJson);
            args.add(n.hasChildren ? "1" : "0");
        }
        String[] keys = {nodes.get(0).keys.meta()};
        return runner.<List<Object>>run(budget, SCRIPT, ScriptOutputType.MULTI, keys, args.toArray(new String[0]))
                .thenApply(r -> {
                    if (r.size() == 2 && r.get(0) instanceof Long && (Long) r.get(0) < 0) {
                        return new Result(List.of(), List.of(), (Long) r.get(0), (int) ((Long) r.get(1) - 1));
                    }
                    List<String> ids = new ArrayList<>(r.size() / 2);
                    List<Boolean> created = new ArrayList<>(r.size() / 2);
                    for (int i = 0; i + 1 < r.size(); i += 2) {
                        ids.add(String.valueOf(r.get(i)));
                        created.add(((Long) r.get(i + 1)) == 1L);
                    }
                    return new Result(ids, created, 0, -1);
                });
    }
}
