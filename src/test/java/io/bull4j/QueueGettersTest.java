package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.*;
import static io.bull4j.WorkerTestKit.*;
import static org.junit.jupiter.api.Assertions.*;

/** The admin getters BullMQ users reach for: getWorkers, getJobLogs, trimEvents, getMeta/getVersion, per priority. */
class QueueGettersTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static Set<String> rawNames(Queue queue) {
        return queue.getWorkers().stream().map(w -> w.get("rawname")).collect(Collectors.toSet());
    }

    @Test
    void getWorkersListsTheWorkersOfThisQueueByTheirConnectionNames() throws Exception {
        // CLIENT LIST is outside the least-privilege ACL of docs/operations.md (BullMQ's getWorkers needs it too)
        org.junit.jupiter.api.Assumptions.assumeFalse(io.bull4j.support.AclUser.enabled(),
                "the ACL user may not run CLIENT LIST");
        String q = queueName("workers");
        String other = queueName("workers-other");
        String base = "bull:" + java.util.Base64.getEncoder().encodeToString(q.getBytes());
        try (Queue queue = new Queue(q, queueOptions())) {
            assertEquals(List.of(), queue.getWorkers());
            Worker named = new Worker(q, job -> null, workerOptions().name("w1").build());
            Worker unnamed = new Worker(q, job -> null, workerOptions().build());
            Worker elsewhere = new Worker(other, job -> null, workerOptions().name("w1").build());
            try {
                eventually(WAIT, () -> queue.getWorkersCount() == 2, "both workers listed");
                assertEquals(Set.of(base + ":w:w1", base), rawNames(queue));
                for (Map<String, String> w : queue.getWorkers()) {
                    assertEquals(q, w.get("name"), "named after the queue, as BullMQ reports it");
                    assertNotNull(w.get("addr"));
                    assertNotNull(w.get("id"));
                }
                named.close();
                eventually(WAIT, () -> queue.getWorkersCount() == 1, "a closed worker leaves the list");
                assertEquals(Set.of(base), rawNames(queue));
            } finally {
                named.close();
                unnamed.close();
                elsewhere.close();
            }
            assertEquals(0, queue.getWorkersCount());
        }
    }

    /** As BullMQ's: a worker that never blocks on the marker (a backlog), or is paused, is listed all the same. */
    @Test
    void aBusyOrPausedWorkerIsListed() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeFalse(io.bull4j.support.AclUser.enabled(),
                "the ACL user may not run CLIENT LIST");
        String q = queueName("workers-busy");
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> {
                 started.countDown();
                 release.await();
                 return null;
             }, workerOptions().concurrency(1).build())) {
            queue.add("a", Map.of());
            queue.add("b", Map.of()); // waits behind a: the worker's fetches find work, it never blocks
            assertTrue(started.await(20, java.util.concurrent.TimeUnit.SECONDS));
            eventually(WAIT, () -> queue.getWorkersCount() == 1, "the busy worker listed");
            String busyId = queue.getWorkers().get(0).get("id");
            worker.pause(); // closes the connection to cut a blocking call, and opens another
            eventually(WAIT, () -> queue.getWorkers().stream().noneMatch(w -> w.get("id").equals(busyId))
                    && queue.getWorkersCount() == 1, "the paused worker listed by its new connection");
            release.countDown();
            eventually(WAIT, () -> redis().zcard(key(q, "completed")) == 1, "a done");
            assertEquals(1, queue.getWorkersCount(), "still listed, paused with b waiting");
            worker.close();
            eventually(WAIT, () -> queue.getWorkersCount() == 0, "a closed worker leaves the list");
        }
    }

    @Test
    void getJobLogsPagesFromEitherEnd() {
        String q = queueName("logs");
        try (Queue queue = new Queue(q, queueOptions())) {
            Job job = queue.add("j", Map.of());
            for (int i = 0; i < 5; i++) {
                job.log("line " + i);
            }
            assertEquals(new JobLogs(List.of("line 0", "line 1", "line 2", "line 3", "line 4"), 5),
                    queue.getJobLogs(job.id(), 0, -1, true));
            assertEquals(new JobLogs(List.of("line 1", "line 2"), 5), queue.getJobLogs(job.id(), 1, 2, true));
            assertEquals(new JobLogs(List.of("line 4", "line 3"), 5), queue.getJobLogs(job.id(), 0, 1, false));
            assertEquals(new JobLogs(List.of("line 4", "line 3", "line 2", "line 1", "line 0"), 5),
                    queue.getJobLogs(job.id(), 0, -1, false));
            assertEquals(new JobLogs(List.of(), 0), queue.getJobLogs("none", 0, -1, true));
            // "through the end" as a huge position, either way (the script's numbers would print it as 9.2e+18)
            assertEquals(5, queue.getJobLogs(job.id(), 0, Long.MAX_VALUE, true).logs().size());
            assertEquals(List.of("line 4", "line 3"), queue.getJobLogs(job.id(), 0, 1, false).logs());
            assertEquals(5, queue.getJobLogs(job.id(), 0, Long.MAX_VALUE, false).logs().size());
            assertEquals(List.of(), queue.getJobLogs(job.id(), Long.MAX_VALUE, Long.MAX_VALUE, true).logs());
            ValidationException e = assertThrows(ValidationException.class, () -> queue.getJobLogs("", 0, -1, true));
            assertTrue(e.getMessage().contains("id"), e.getMessage());
        }
    }

    @Test
    void trimEventsCutsTheStreamToAboutTheLength() {
        String q = queueName("trim");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int i = 0; i < 300; i++) {
                queue.add("j", Map.of());
            }
            long before = redis().xlen(key(q, "events"));
            assertTrue(before >= 300, "one event per add at least: " + before);
            long removed = queue.trimEvents(10);
            long after = redis().xlen(key(q, "events"));
            assertEquals(before - after, removed);
            assertTrue(removed > 0 && after >= 10 && after < before, "trimmed to about 10: " + after);
            assertThrows(ValidationException.class, () -> queue.trimEvents(-1));
            assertEquals(after, redis().xlen(key(q, "events")), "a refused trim removes nothing");
        }
    }

    @Test
    void getMetaAndGetVersionReadTheMetaHash() {
        String q = queueName("meta");
        try (Queue queue = new Queue(q, queueOptions())) {
            assertEquals("bull4j:" + Version.VALUE, queue.getVersion());
            QueueMeta fresh = queue.getMeta();
            assertFalse(fresh.paused());
            assertEquals(10000L, fresh.maxLenEvents());
            assertNull(fresh.concurrency());
            assertNull(fresh.max());
            assertNull(fresh.duration());
            queue.pause();
            queue.setGlobalConcurrency(4);
            queue.setGlobalRateLimit(7, Duration.ofSeconds(2));
            QueueMeta meta = queue.getMeta();
            assertTrue(meta.paused());
            assertEquals(4, meta.concurrency());
            assertEquals(7L, meta.max());
            assertEquals(Duration.ofSeconds(2), meta.duration());
            assertEquals("bull4j:" + Version.VALUE, meta.version());
            assertEquals(redis().hgetall(key(q, "meta")), meta.fields());
        }
        String reader = queueName("meta-none");
        try (Queue queue = new Queue(reader, QueueOptions.builder().connection(connection()).skipMetasUpdate(true)
                .build())) {
            assertNull(queue.getVersion());
            assertEquals(new QueueMeta(false, null, null, null, null, null, Map.of()), queue.getMeta());
        }
    }

    @Test
    void getCountsPerPriorityCountsWaitForZeroAndThePrioritizedSetOtherwise() {
        String q = queueName("priorities");
        try (Queue queue = new Queue(q, queueOptions())) {
            for (int p : new int[] {0, 0, 1, 5, 5, 5, JobOptions.MAX_PRIORITY}) {
                queue.add("j", Map.of(), JobOptions.builder().priority(p).build());
            }
            Map<Integer, Long> expected = new LinkedHashMap<>();
            expected.put(5, 3L);
            expected.put(0, 2L);
            expected.put(1, 1L);
            expected.put(7, 0L);
            expected.put(JobOptions.MAX_PRIORITY, 1L);
            Map<Integer, Long> counts = queue.getCountsPerPriority(5, 0, 1, 7, 5, JobOptions.MAX_PRIORITY);
            assertEquals(expected, counts);
            assertEquals(List.copyOf(expected.keySet()), List.copyOf(counts.keySet()), "in the order first named");
            for (int[] bad : new int[][] {{}, {-1}, {JobOptions.MAX_PRIORITY + 1}}) {
                ValidationException e = assertThrows(ValidationException.class, () -> queue.getCountsPerPriority(bad));
                assertTrue(e.getMessage().contains("priorities"), e.getMessage());
            }
        }
    }
}
