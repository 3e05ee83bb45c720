package io.bull4j.internal.script;

import io.bull4j.JobException;
import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.RedisLink;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every Lua script in lua/ has a Java caller, and every caller passes exactly the keys the script's header
 * declares: ScriptRunner refuses a mismatch before sending, so calling each one against a real Redis proves it.
 * It also proves each script compiles and runs. A new script must be added to {@link #callers()}.
 */
class ScriptKeysTest {
    private static RedisLink link;
    private static ScriptRunner runner;
    private static final QueueKeys K = new QueueKeys("bull", RedisTestServer.uniqueQueueName("keys"));

    @BeforeAll
    static void connect() {
        link = RedisLink.open(RedisTestServer.get().bull4jUri(), Duration.ofSeconds(10));
        runner = link.scripts();
    }

    @AfterAll
    static void close() {
        link.close();
    }

    private static Map<String, Supplier<CompletableFuture<?>>> callers() {
        Map<String, Supplier<CompletableFuture<?>>> m = new LinkedHashMap<>();
        long now = System.currentTimeMillis();
        m.put("addJob", () -> AddJob.run(runner, K, List.of(new AddJob.Spec(null, "n", now, "{}", "{}", 0, 0,
                false))));
        m.put("addFlow", () -> AddFlow.run(runner, runner.timeout(), now, List.of(new AddFlow.Node(K, "flow-x", "n",
                now, "{}", "{}", 0, 0, false, null, null, false))));
        m.put("moveToWaitingChildren", () -> FlowSteps.moveToWaitingChildren(runner, K, "missing", "t:1", now, null));
        m.put("removeUnprocessedChildren", () -> FlowSteps.removeUnprocessedChildren(runner, K, "missing"));
        m.put("removeChildDependency", () -> FlowSteps.removeChildDependency(runner, K, "missing"));
        m.put("moveToActive", () -> MoveToActive.run(runner, K, now, "t:1", 1000, null, 10, 1000));
        m.put("moveManyToActive", () -> MoveManyToActive.run(runner, K, now, List.of("t:1", "t:2"), 1000, null, 10,
                1000));
        MoveToFinished.Request r = new MoveToFinished.Request();
        r.jobId = "missing";
        r.token = "t:1";
        r.value = "null";
        m.put("moveToFinished", () -> MoveToFinished.run(runner, K, r));
        m.put("moveManyToFinished", () -> MoveManyToFinished.run(runner, K, List.of(r, r)));
        m.put("retryJob", () -> RetryJob.run(runner, K, "missing", "t:1", "x", null, now));
        m.put("moveToDelayed", () -> MoveToDelayed.run(runner, K, "missing", "t:1", now, 0, null, null));
        m.put("moveToWait", () -> MoveToWait.run(runner, K, "missing", "t:1"));
        m.put("moveStalledJobsToWait", () -> MoveStalledJobsToWait.run(runner, K, now, 1, 1000));
        m.put("sweepStalledJobs", () -> SweepStalledJobs.run(runner, K, now, 1));
        m.put("takeLock", () -> Locks.take(runner, K, "missing", "t:1", 1000));
        m.put("extendLock", () -> Locks.extend(runner, K, "missing", "t:1", 1000));
        m.put("extendLocks", () -> Locks.extendAll(runner, K, Map.of("missing", "t:1"), 1000));
        m.put("releaseLock", () -> Locks.release(runner, K, "missing", "t:1"));
        m.put("updateProgress", () -> JobData.updateProgress(runner, K, "missing", "1"));
        m.put("addLog", () -> JobData.addLog(runner, K, "missing", "line", 3));
        m.put("clearLogs", () -> JobData.clearLogs(runner, K, "missing", 1));
        m.put("updateData", () -> JobData.updateData(runner, K, "missing", "{}"));
        m.put("getState", () -> JobData.state(runner, K, "missing"));
        m.put("changeDelay", () -> ChangeDelay.run(runner, K, "missing", 10, now));
        m.put("changePriority", () -> ChangePriority.run(runner, K, "missing", 1, false));
        m.put("promote", () -> PromoteJob.run(runner, K, "missing"));
        m.put("reprocessJob", () -> ReprocessJob.run(runner, K, "missing", true, false, false, false));
        m.put("isFinished", () -> IsFinished.run(runner, K, "missing"));
        m.put("removeJob", () -> RemoveJob.run(runner, K, "missing"));
        m.put("getCounts", () -> GetCounts.run(runner, K));
        m.put("getMetrics", () -> GetMetrics.run(runner, K, "completed", 0, -1));
        m.put("getDependencies", () -> GetDependencies.run(runner, K.job("missing") + ":dependencies", 0, -1, "0", 0));
        m.put("getJobLogs", () -> QueueReads.logs(runner, K, "missing", 0, -1, false));
        m.put("getCountsPerPriority", () -> QueueReads.countsPerPriority(runner, K, List.of(0, 1)));
        m.put("getJobs", () -> GetJobs.run(runner, K, 0, -1, false, List.of("wait", "completed")));
        AddJobScheduler.Definition every = new AddJobScheduler.Definition();
        every.name = "tick";
        every.every = "60000";
        m.put("addJobScheduler", () -> AddJobScheduler.run(runner, K, "keys-s", null, now, every, "{}", "{}",
                "{\"repeatJobKey\":\"keys-s\",\"repeat\":{\"every\":60000,\"count\":1}}"));
        m.put("updateJobScheduler", () -> UpdateJobScheduler.run(runner, K, "keys-s", null, now, "not-current",
                "{}"));
        m.put("removeJobScheduler", () -> RemoveJobScheduler.run(runner, K, "keys-s"));
        m.put("pause", () -> Pause.run(runner, K, true)); // obliterate, below, needs a paused queue
        m.put("drain", () -> Drain.run(runner, K, true));
        m.put("cleanJobsInSet", () -> CleanJobsInSet.run(runner, K, "completed", now, 0));
        m.put("moveJobsToWait", () -> MoveJobsToWait.run(runner, K, "failed", 10, Long.toString(now)));
        m.put("obliterate", () -> Obliterate.run(runner, K, 100, true));
        m.put("moveLimitedToWait", () -> MoveLimitedToWait.run(runner, K, "missing", "t:1"));
        m.put("getRateLimitTtl", () -> RateLimits.ttl(runner, K, 0));
        m.put("isMaxed", () -> RateLimits.isMaxed(runner, K));
        m.put("removeDeduplicationKey", () -> RemoveDeduplicationKey.run(runner, K, "d", "missing"));
        m.put("requestCancel", () -> CancelRequests.request(runner, K, "missing", "why", 1000));
        return m;
    }

    @Test
    void everyScriptHasACallerThatPassesTheDeclaredKeys() throws Exception {
        Map<String, Supplier<CompletableFuture<?>>> callers = callers();
        assertEquals(scriptsOnDisk(), new TreeSet<>(callers.keySet()), "lua/*.lua versus the callers listed here");
        for (Map.Entry<String, Supplier<CompletableFuture<?>>> e : callers.entrySet()) {
            LuaScript script = LuaScript.load(e.getKey());
            assertTrue(script.keyCount() > 0, e.getKey() + " declares no KEYS in its header");
            try {
                e.getValue().get().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | CompletionException x) {
                // a refusal coded by the script (missing job, not in state) is a proper run of it
                assertInstanceOf(JobException.class, x.getCause(), e.getKey() + " failed: " + x.getCause());
            }
        }
    }

    @Test
    void aCallWithTheWrongKeyCountIsRefusedBeforeReachingRedis() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> runner.run(LuaScript.load("releaseLock"), io.lettuce.core.ScriptOutputType.INTEGER,
                        new String[] {K.lock("1"), K.stalled()}, "t:1"));
        assertTrue(e.getMessage().contains("declares 1 keys"), e.getMessage());
    }

    private static Set<String> scriptsOnDisk() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("lua"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua"))
                    .map(n -> n.substring(0, n.length() - 4)).collect(Collectors.toCollection(TreeSet::new));
        }
    }

}
