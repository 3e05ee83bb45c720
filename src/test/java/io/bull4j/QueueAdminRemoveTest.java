package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.RedisTestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.QueueAdminTest.*;
import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** {@link Queue#remove}, {@link Queue#drain} and {@link Queue#obliterate}, checked on Redis state and events. */
class QueueAdminRemoveTest {

    @Test
    void removeTakesAJobOutOfAnyStateWithItsKeys() throws Exception {
        String q = queueName("remove");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            queue.getJob("4").log("a line");
            assertEquals(1L, redis().exists(key(q, "4:logs")));

            assertTrue(queue.remove("4"));
            assertTrue(queue.remove("7"));
            assertTrue(queue.remove("6"));
            assertTrue(queue.remove("3"));
            assertTrue(queue.remove("1"));
            assertEquals(0L, redis().exists(key(q, "4"), key(q, "4:logs"), key(q, "7"), key(q, "6"), key(q, "3"),
                    key(q, "1")));
            assertEquals(List.of("5"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(List.of("8"), redis().zrange(key(q, "delayed"), 0, -1));
            assertEquals(0L, redis().zcard(key(q, "prioritized")));
            assertEquals(0L, redis().zcard(key(q, "failed")));
            assertEquals(List.of("2"), redis().zrange(key(q, "completed"), 0, -1));
            // prev is the state's key name, as BullMQ writes it
            assertEquals(List.of(event("event", "removed", "jobId", "4", "prev", "wait"),
                    event("event", "removed", "jobId", "7", "prev", "delayed"),
                    event("event", "removed", "jobId", "6", "prev", "prioritized"),
                    event("event", "removed", "jobId", "3", "prev", "failed"),
                    event("event", "removed", "jobId", "1", "prev", "completed")), events(q, "removed"));

            // a missing job: false, and no event
            assertFalse(queue.remove("4"));
            assertFalse(queue.remove("nope"));
            assertEquals(5, events(q, "removed").size());
        }
    }

    @Test
    void removeRefusesAJobAWorkerHolds() throws Exception {
        String q = queueName("removelocked");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> active = new CompletableFuture<>();
            CompletableFuture<String> completed = new CompletableFuture<>();
            Worker worker = new Worker(q, j -> {
                active.complete(null);
                release.await();
                return "done";
            }, workerOptions().autorun(false).build());
            worker.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job j, Object result) {
                    completed.complete(j.id());
                }
            });
            try {
                worker.run();
                await(active);
                assertFalse(queue.remove(job.id()));
                assertEquals(List.of(job.id()), redis().lrange(key(q, "active"), 0, -1));
                assertEquals(2L, redis().exists(key(q, job.id()), key(q, job.id() + ":lock")));
                assertEquals(List.of(), events(q, "removed"));
                release.countDown();
                assertEquals(job.id(), await(completed));
            } finally {
                release.countDown();
                worker.close();
            }
            // finished and unlocked, it can go
            assertTrue(queue.remove(job.id()));
            assertEquals(List.of(event("event", "removed", "jobId", job.id(), "prev", "completed")),
                    events(q, "removed"));
        }
    }

    @Test
    void removeKeepsASchedulersPendingJob() throws Exception {
        String q = queueName("removesched");
        try (Queue queue = new Queue(q, queueOptions())) {
            String id = "repeat:s1:1700000000000";
            redis().zadd(key(q, "repeat"), 1700000000000.0, "s1");
            redis().hset(key(q, id), Map.of("name", "tick", "data", "{}", "opts", "{}", "timestamp", "1", "rjk", "s1"));
            redis().zadd(key(q, "delayed"), 1700000000000.0 * 4096, id);
            assertFalse(queue.remove(id));
            assertEquals(1L, redis().exists(key(q, id)));
            assertEquals(1L, redis().zcard(key(q, "delayed")));
        }
    }

    @Test
    void removingTheLastChildReleasesItsParentToWait() throws Exception {
        String q = queueName("removechild");
        try (Queue queue = new Queue(q, queueOptions())) {
            // BullMQ's flow layout, written by hand: parent "par" waits for child "kid" of the same queue
            redis().hset(key(q, "par"), Map.of("name", "parent", "data", "{}", "opts", "{}", "timestamp", "1"));
            redis().zadd(key(q, "waiting-children"), 1, "par");
            redis().sadd(key(q, "par:dependencies"), key(q, "kid"));
            redis().hset(key(q, "kid"), Map.of("name", "child", "data", "{}", "opts", "{}", "timestamp", "1",
                    "parentKey", key(q, "par")));
            redis().lpush(key(q, "wait"), "kid");

            assertTrue(queue.remove("kid"));
            assertEquals(List.of("par"), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0L, redis().zcard(key(q, "waiting-children")));
            assertEquals(0L, redis().scard(key(q, "par:dependencies")));
            assertEquals(List.of(event("event", "waiting", "jobId", "par", "prev", "waiting-children")),
                    events(q, "waiting"));
        }
    }

    @Test
    void removeDeletesTheDeduplicationKeyOfAJobBullmqAdded() throws Exception {
        NodeBullmq.assumeAvailable();
        String q = queueName("removededup");
        String uri = RedisTestServer.get().uri();
        JsonNode added = NodeBullmq.runOne(Duration.ofSeconds(30), "add", uri, q, "d", "{}",
                "{\"deduplication\":{\"id\":\"dd1\"}}");
        String id = added.get("id").asText();
        assertEquals(id, redis().get(key(q, "de:dd1")));
        try (Queue queue = new Queue(q, queueOptions())) {
            assertTrue(queue.remove(id));
        }
        assertEquals(0L, redis().exists(key(q, "de:dd1"), key(q, id)));
        assertTrue(NodeBullmq.runOne(Duration.ofSeconds(30), "getJob", uri, q, id).get("missing").asBoolean());
    }

    // ---- drain ----

    @Test
    void drainRemovesWaitingAndPrioritizedJobsButKeepsTheRest() throws Exception {
        String q = queueName("drain");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            redis().hset(key(q, "legacy"), Map.of("name", "old", "data", "{}", "opts", "{}", "timestamp", "1"));
            redis().lpush(key(q, "paused"), "legacy");
            int eventsBefore = events(q).size();

            queue.drain(false);
            assertEquals(0L, redis().exists(key(q, "wait"), key(q, "paused"), key(q, "prioritized")));
            assertEquals(0L, redis().exists(key(q, "4"), key(q, "5"), key(q, "6"), key(q, "legacy")));
            assertEquals(List.of("7", "8"), redis().zrange(key(q, "delayed"), 0, -1));
            assertEquals(2L, redis().exists(key(q, "7"), key(q, "8")));
            assertEquals(2L, redis().zcard(key(q, "completed")));
            assertEquals(1L, redis().zcard(key(q, "failed")));
            assertEquals(eventsBefore, events(q).size(), "drain emits no events, as BullMQ");

            queue.drain(true);
            assertEquals(0L, redis().exists(key(q, "delayed"), key(q, "7"), key(q, "8")));
            assertEquals(Map.of(JobState.COMPLETED, 2L, JobState.FAILED, 1L, JobState.WAITING, 0L),
                    queue.getJobCounts(JobState.COMPLETED, JobState.FAILED, JobState.WAITING));
        }
    }

    @Test
    void drainHandlesLargeQueuesAndKeepsSchedulerJobs() throws Exception {
        String q = queueName("drainbig");
        try (Queue queue = new Queue(q, queueOptions())) {
            List<BulkJob> jobs = new ArrayList<>();
            for (int i = 0; i < 8000; i++) {
                jobs.add(BulkJob.of("w", Map.of(), i % 2 == 0 ? null : priority(1 + i % 5)));
            }
            queue.addBulk(jobs);
            String sched = "repeat:s1:1700000000000";
            redis().zadd(key(q, "repeat"), 1700000000000.0, "s1");
            redis().hset(key(q, sched), Map.of("name", "tick", "data", "{}", "opts", "{}", "timestamp", "1",
                    "rjk", "s1"));
            redis().rpush(key(q, "wait"), sched);

            queue.drain(true);
            assertEquals(List.of(sched), redis().lrange(key(q, "wait"), 0, -1));
            assertEquals(0L, redis().zcard(key(q, "prioritized")));
            assertEquals(0L, redis().exists(key(q, "1"), key(q, "2"), key(q, "7999"), key(q, "8000")));
            assertEquals(1L, redis().exists(key(q, sched)));
        }
    }

    // ---- obliterate ----

    @Test
    void obliterateDeletesEveryKeyOfTheQueue() throws Exception {
        String q = queueName("oblit");
        try (Queue queue = new Queue(q, queueOptions())) {
            fill(queue);
            queue.getJob("4").log("a line");
            List<BulkJob> more = new ArrayList<>();
            for (int i = 0; i < 2500; i++) {
                more.add(BulkJob.of("w", Map.of()));
            }
            queue.addBulk(more);
            assertTrue(redis().keys("bull:" + q + ":*").size() > 2500);

            queue.obliterate(false);
            assertEquals(List.of(), redis().keys("bull:" + q + ":*"));
        }
    }

    @Test
    void obliterateRefusesActiveJobsUnlessForced() throws Exception {
        String q = queueName("oblitactive");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("slow", Map.of());
            queue.add("w", Map.of());
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> active = new CompletableFuture<>();
            Worker worker = new Worker(q, j -> {
                active.complete(null);
                release.await();
                return "done";
            }, workerOptions().build());
            try {
                await(active);
                Bull4jException e = assertThrows(Bull4jException.class, () -> queue.obliterate(false));
                assertTrue(e.getMessage().contains("active jobs"), e.getMessage());
                // it paused first, and deleted nothing
                assertTrue(queue.isPaused());
                assertEquals(List.of(job.id()), redis().lrange(key(q, "active"), 0, -1));
                assertEquals(List.of("2"), redis().lrange(key(q, "wait"), 0, -1));

                queue.obliterate(true);
                assertEquals(List.of(), redis().keys("bull:" + q + ":*"));
            } finally {
                release.countDown();
                worker.close();
            }
        }
    }
}
