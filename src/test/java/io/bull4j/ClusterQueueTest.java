package io.bull4j;

import io.bull4j.support.RedisTestCluster;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bull4j.TestSupport.await;
import static io.bull4j.TestSupport.eventually;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The core on a real 3-master Redis Cluster, one representative test per family, with the hash-tagged prefix
 * {@code "{bull}"} (and one queue tagged by its name). Assertions read the cluster itself.
 */
class ClusterQueueTest {
    static final String PREFIX = "{bull}";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @BeforeAll
    static void startCluster() {
        RedisTestCluster.get();
    }

    static RedisAdvancedClusterCommands<String, String> redis() {
        return RedisTestCluster.get().sync();
    }

    static String key(String prefix, String q, String suffix) {
        return prefix + ":" + q + ":" + suffix;
    }

    static String key(String q, String suffix) {
        return key(PREFIX, q, suffix);
    }

    static QueueOptions queueOptions(String prefix) {
        return QueueOptions.builder().connection(RedisTestCluster.get().connection()).prefix(prefix).build();
    }

    static WorkerOptions.Builder workerOptions(String prefix) {
        return WorkerOptions.builder().connection(RedisTestCluster.get().connection()).prefix(prefix)
                .drainDelay(Duration.ofSeconds(1));
    }

    static List<String> eventNames(String prefix, String q, String jobId) {
        List<String> out = new ArrayList<>();
        for (StreamMessage<String, String> m : redis().xrange(key(prefix, q, "events"), Range.create("-", "+"))) {
            if (jobId.equals(m.getBody().get("jobId"))) {
                out.add(m.getBody().get("event"));
            }
        }
        return out;
    }

    /** Adds one job and processes it with a Worker; checks the finished job in Redis. */
    private static void addAndProcess(String prefix, String q) throws Exception {
        try (Queue queue = new Queue(q, queueOptions(prefix))) {
            Job job = queue.add("welcome", Map.of("to", "ana@example.com"));
            assertEquals(List.of(job.id()), redis().lrange(key(prefix, q, "wait"), 0, -1));
            CompletableFuture<Object> done = new CompletableFuture<>();
            // the listener goes to the constructor: added after it, it could miss the job already waiting
            Worker worker = new Worker(q, j -> Map.of("sent", j.data(Map.class).get("to")),
                    workerOptions(prefix).build(), new WorkerListener() {
                        @Override
                        public void onCompleted(Job j, Object result) {
                            done.complete(result);
                        }
                    });
            try {
                assertEquals(Map.of("sent", "ana@example.com"), await(done));
            } finally {
                worker.close();
            }
            Map<String, String> h = redis().hgetall(key(prefix, q, job.id()));
            assertEquals("{\"sent\":\"ana@example.com\"}", h.get("returnvalue"));
            assertEquals("1", h.get("atm"));
            assertNotNull(redis().zscore(key(prefix, q, "completed"), job.id()));
            assertEquals(0, redis().llen(key(prefix, q, "active")));
            assertEquals(0, redis().exists(key(prefix, q, job.id() + ":lock")));
            assertEquals(List.of("added", "waiting", "active", "completed"), eventNames(prefix, q, job.id()));
        }
    }

    @Test
    void addAndProcessWithATaggedPrefix() throws Exception {
        addAndProcess(PREFIX, RedisTestServer.uniqueQueueName("cl-basic"));
    }

    @Test
    void addAndProcessWithATaggedQueueName() throws Exception {
        String q = "{" + RedisTestServer.uniqueQueueName("cl-named") + "}";
        addAndProcess("bull", q);
        String tag = q.substring(1, q.length() - 1);
        assertEquals(redis().clusterKeyslot(tag).longValue(), redis().clusterKeyslot(key("bull", q, "completed")));
    }

    @Test
    void failedJobIsRetriedWithFixedBackoffThenCompletes() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-retry");
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<Job> done = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            Job job = queue.add("flaky", Map.of(), JobOptions.builder().attempts(3)
                    .backoff(Backoff.fixed(Duration.ofMillis(200))).build());
            Worker worker = new Worker(q, j -> {
                if (runs.incrementAndGet() < 3) {
                    throw new IllegalStateException("boom " + runs.get());
                }
                return "ok";
            }, workerOptions(PREFIX).build(), new WorkerListener() {
                @Override
                public void onCompleted(Job j, Object result) {
                    done.complete(j);
                }
            });
            try {
                await(done);
            } finally {
                worker.close();
            }
            assertEquals(3, runs.get());
            Map<String, String> h = redis().hgetall(key(q, job.id()));
            assertEquals("3", h.get("atm"));
            assertEquals("boom 2", h.get("failedReason"));
            assertNotNull(redis().zscore(key(q, "completed"), job.id()));
            // as BullMQ, a failure that is retried emits "delayed" (the backoff), not "failed"
            assertEquals(List.of("added", "waiting", "active", "delayed", "waiting", "active", "delayed", "waiting",
                    "active", "completed"), eventNames(PREFIX, q, job.id()));
        }
    }

    @Test
    void delayedJobRunsWhenDue() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-delay");
        CompletableFuture<Long> ranAt = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            long addedAt = System.currentTimeMillis();
            Job job = queue.add("later", Map.of(), JobOptions.builder().delay(Duration.ofMillis(1500)).build());
            assertNotNull(redis().zscore(key(q, "delayed"), job.id()));
            assertEquals(JobState.DELAYED, job.getState());
            Worker worker = new Worker(q, j -> ranAt.complete(System.currentTimeMillis()), workerOptions(PREFIX)
                    .build());
            try {
                assertTrue(await(ranAt) >= addedAt + 1500, "ran before it was due");
                eventually(WAIT, () -> redis().zscore(key(q, "completed"), job.id()) != null, "completed");
            } finally {
                worker.close();
            }
            assertNull(redis().zscore(key(q, "delayed"), job.id()));
        }
    }

    @Test
    void gettersReadTheQueue() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-get");
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            Job a = queue.add("a", Map.of("n", 1));
            Job b = queue.add("b", Map.of("n", 2), JobOptions.builder().delay(Duration.ofHours(1)).build());
            Job c = queue.add("c", Map.of("n", 3), JobOptions.builder().priority(5).build());
            Map<JobState, Long> counts = queue.getJobCounts(JobState.WAITING, JobState.DELAYED,
                    JobState.PRIORITIZED, JobState.COMPLETED);
            assertEquals(Map.of(JobState.WAITING, 1L, JobState.DELAYED, 1L, JobState.PRIORITIZED, 1L,
                    JobState.COMPLETED, 0L), counts);
            assertEquals(3, queue.count());
            List<String> ids = queue.getJobs(JobState.WAITING, JobState.DELAYED, JobState.PRIORITIZED).stream()
                    .map(Job::id).toList();
            assertEquals(Set.of(a.id(), b.id(), c.id()), Set.copyOf(ids));
            assertEquals(3, ids.size());
            Job got = queue.getJob(c.id());
            assertEquals("c", got.name());
            assertEquals(5, got.priority());
            assertEquals(JobState.PRIORITIZED, got.getState());
            assertNull(queue.getJob("no-such-job"));
        }
    }

    @Test
    void jobOperationsWorkOnTheCluster() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-ops");
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            Job job = queue.add("op", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build());
            job.updateProgress(42);
            assertEquals(1, job.log("hello"));
            job.updateData(Map.of("v", 2));
            job.changePriority(3);
            job.promote();
            assertEquals(JobState.PRIORITIZED, job.getState());
            Map<String, String> h = redis().hgetall(key(q, job.id()));
            assertEquals("42", h.get("progress"));
            assertEquals("{\"v\":2}", h.get("data"));
            assertEquals(List.of("hello"), redis().lrange(key(q, job.id() + ":logs"), 0, -1));
            Worker worker = new Worker(q, j -> "done", workerOptions(PREFIX).build());
            try {
                // XREAD BLOCK on a connection of its own, routed by the events key
                assertEquals("\"done\"", job.waitUntilFinished(WAIT).returnValueJson());
            } finally {
                worker.close();
            }
            assertTrue(queue.remove(job.id()));
            assertEquals(0, redis().exists(key(q, job.id()), key(q, job.id() + ":logs")));
        }
    }

    @Test
    void cleanAndObliterate() throws Exception {
        String q = RedisTestServer.uniqueQueueName("cl-clean");
        try (Queue queue = new Queue(q, queueOptions(PREFIX))) {
            queue.addBulk(List.of(BulkJob.of("a", Map.of()), BulkJob.of("b", Map.of()),
                    BulkJob.of("c", Map.of())));
            List<String> cleaned = queue.clean(Duration.ZERO, 2, JobState.WAITING);
            assertEquals(2, cleaned.size());
            assertEquals(1, redis().llen(key(q, "wait")));
            for (String id : cleaned) {
                assertEquals(0, redis().exists(key(q, id)));
            }
            queue.add("delayed", Map.of(), JobOptions.builder().delay(Duration.ofHours(1)).build());
            assertFalse(redis().keys(PREFIX + ":" + q + ":*").isEmpty());
            queue.obliterate(false);
            assertEquals(List.of(), redis().keys(PREFIX + ":" + q + ":*"), "obliterate left keys behind");
        }
    }
}
