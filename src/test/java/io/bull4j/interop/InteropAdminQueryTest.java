package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.Job;
import io.bull4j.JobOptions;
import io.bull4j.JobState;
import io.bull4j.Queue;
import io.bull4j.Worker;
import io.bull4j.interop.InteropWorkerKit.NodeWorker;
import io.bull4j.support.NodeBullmq;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import static io.bull4j.interop.InteropWorkerAsserts.*;
import static io.bull4j.interop.InteropWorkerKit.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * getJobCounts, getJobs and getJob of bullmq and bull4j agree, field by field, on a queue holding jobs in every
 * state (waiting, prioritized, delayed, active, completed, failed), two per state where order matters. One queue
 * is filled by bullmq, one by bull4j; each job's hash then holds the same fields whoever made it.
 */
class InteropAdminQueryTest {
    @BeforeAll
    static void node() {
        NodeBullmq.assumeAvailable();
    }

    /** The jobs, by role; the role names are also the job names. */
    private record Made(String ok1, String ok2, String bad, String act, String w1, String w2, String p1, String p2,
                        String d1, String d2) {
        List<String> all() {
            return List.of(ok1, ok2, bad, act, w1, w2, p1, p2, d1, d2);
        }
    }

    @Test
    void bothSidesReadAlikeWhoeverMadeTheJobs() throws Exception {
        String qn = queueName("query-n");
        String qj = queueName("query-j");
        CompletableFuture<String> holding = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        NodeWorker nodeHolder = null;
        try (Queue byNode = new Queue(qn, queueOptions()); Queue byJava = new Queue(qj, queueOptions());
             Worker javaHolder = new Worker(qj, job -> {
                 holding.complete(job.id());
                 release.await();
                 return null;
             }, workerOptions().lockDuration(Duration.ofSeconds(5)).autorun(false).build())) {
            // released in finally, before the worker closes: a failed assertion must fail the test, not leave
            // close() waiting for the held job
            try {
                List<JsonNode> a = ops(qn, obj("op", "add", "name", "ok1", "data", obj("k", "v")),
                        obj("op", "add", "name", "ok2", "data", obj("k", List.of(1, 2))),
                        obj("op", "add", "name", "bad", "data", obj("k", 2), "opts", obj("attempts", 2)));
                nodeWorker(qn, obj("finals", 3, "progress", 42, "returnvalue", obj("r", 1),
                        "fail", obj("names", List.of("bad"), "message", "node bad")));
                nodeHolder = startNodeWorker(qn, obj("hang", true, "maxStarts", 1)); // holds the next job: act
                Made n = makeWithNode(qn, a, nodeHolder);
                Made j = makeWithJava(qj, byJava, javaHolder, holding);
                assertListingsAgree(qn, byNode, n);
                assertListingsAgree(qj, byJava, j);
                for (int i = 0; i < n.all().size(); i++) {
                    assertEquals(new TreeSet<>(hash(qn, n.all().get(i)).keySet()),
                            new TreeSet<>(hash(qj, j.all().get(i)).keySet()),
                            "the hash of job " + redis().hget(key(qn, n.all().get(i)), "name")
                                    + " has the same fields");
                }
            } finally {
                release.countDown();
            }
        } finally {
            if (nodeHolder != null) {
                nodeHolder.close();
            }
        }
    }

    /** The finished jobs {@code a} are made; adds the active one (for the holder) and those still to run. */
    private static Made makeWithNode(String q, List<JsonNode> a, NodeWorker holder) {
        String act = op(q, obj("op", "add", "name", "act")).get("id").asText();
        holder.await("start", act);
        List<JsonNode> b = ops(q, obj("op", "add", "name", "w1", "data", obj("w", true)),
                obj("op", "add", "name", "w2"),
                obj("op", "add", "name", "p1", "opts", obj("priority", 3)),
                obj("op", "add", "name", "p2", "opts", obj("priority", 1)),
                obj("op", "add", "name", "d1", "opts", obj("delay", 60_000)),
                obj("op", "add", "name", "d2", "opts", obj("delay", 30_000)));
        Made m = new Made(id(a, 0), id(a, 1), id(a, 2), act, id(b, 0), id(b, 1), id(b, 2), id(b, 3), id(b, 4),
                id(b, 5));
        ops(q, obj("op", "progress", "id", m.w1, "value", 7), obj("op", "progress", "id", m.d1, "value",
                obj("step", "x")));
        return m;
    }

    private static Made makeWithJava(String q, Queue queue, Worker holder, CompletableFuture<String> holding)
            throws Exception {
        String ok1 = queue.add("ok1", Map.of("k", "v")).id();
        String ok2 = queue.add("ok2", Map.of("k", List.of(1, 2))).id();
        String bad = queue.add("bad", Map.of("k", 2), JobOptions.builder().attempts(2).build()).id();
        runJavaWorker(q, 3, job -> {
            job.updateProgress(42);
            if (job.name().equals("bad")) {
                throw new IllegalStateException("java bad");
            }
            return Map.of("r", 1);
        });
        String act = queue.add("act", Map.of()).id();
        holder.run();
        assertEquals(act, await(holding));
        Made m = new Made(ok1, ok2, bad, act, queue.add("w1", Map.of("w", true)).id(), queue.add("w2", Map.of()).id(),
                queue.add("p1", Map.of(), JobOptions.builder().priority(3).build()).id(),
                queue.add("p2", Map.of(), JobOptions.builder().priority(1).build()).id(),
                queue.add("d1", Map.of(), JobOptions.builder().delay(Duration.ofMinutes(1)).build()).id(),
                queue.add("d2", Map.of(), JobOptions.builder().delay(Duration.ofSeconds(30)).build()).id());
        queue.getJob(m.w1).updateProgress(7);
        queue.getJob(m.d1).updateProgress(Map.of("step", "x"));
        return m;
    }

    private static String id(List<JsonNode> added, int i) {
        return added.get(i).get("id").asText();
    }

    /** Pages asked of both sides: all states, several states, one state, asc and desc. */
    private static final List<List<Object>> PAGES = List.of(
            List.of(List.of(), 0, -1), List.of(List.of("waiting", "prioritized", "delayed"), 0, 0),
            List.of(List.of("completed", "waiting"), 1, 1), List.of(List.of("delayed", "prioritized"), 0, 5),
            List.of(List.of("waiting"), 1, -1));

    private static void assertListingsAgree(String q, Queue queue, Made m) {
        assertEquals(List.of(m.act), redis().lrange(key(q, "active"), 0, -1));
        assertEquals(List.of(m.w2, m.w1), redis().lrange(key(q, "wait"), 0, -1));

        List<Map<?, ?>> asks = new ArrayList<>(List.of(obj("op", "dump")));
        for (List<Object> page : PAGES) {
            for (boolean asc : List.of(false, true)) {
                asks.add(obj("op", "getJobs", "types", page.get(0), "start", page.get(1), "end", page.get(2),
                        "asc", asc));
            }
        }
        m.all().forEach(id -> asks.add(obj("op", "getJob", "id", id)));
        List<JsonNode> r = ops(q, asks.toArray(new Map<?, ?>[0]));
        JsonNode dump = r.get(0);

        Map<JobState, Long> counts = queue.getJobCounts();
        Map<JobState, Long> expected = Map.of(JobState.ACTIVE, 1L, JobState.COMPLETED, 2L, JobState.DELAYED, 2L,
                JobState.FAILED, 1L, JobState.PRIORITIZED, 2L, JobState.WAITING, 2L, JobState.WAITING_CHILDREN, 0L);
        assertEquals(expected, counts);
        counts.forEach((s, c) -> assertEquals(c.longValue(), dump.get("counts").path(s.wireName()).asLong(-1),
                "bullmq's count of " + s));

        List<Job> ours = queue.getJobs();
        assertEquals(List.of(m.act, m.ok2, m.ok1, m.d1, m.d2, m.bad, m.p1, m.p2, m.w2, m.w1),
                ours.stream().map(Job::id).toList(), "newest first, state after state in bullmq's order");
        assertEquals(ours.stream().map(Job::id).toList(), ids(dump.get("jobs")));
        for (int i = 0; i < ours.size(); i++) {
            assertSameJob(dump.get("jobs").get(i), ours.get(i));
            assertEquals(ours.get(i).getState().wireName(), dump.get("states").get(ours.get(i).id()).asText());
        }

        int at = 1;
        for (List<Object> page : PAGES) {
            for (boolean asc : List.of(false, true)) {
                Set<JobState> states = new LinkedHashSet<>();
                ((List<?>) page.get(0)).forEach(s -> states.add(JobState.fromWireName((String) s)));
                List<Job> mine = queue.getJobs(states, (Integer) page.get(1), (Integer) page.get(2), asc);
                assertEquals(ids(r.get(at)), mine.stream().map(Job::id).toList(), "page " + page + " asc " + asc);
                for (int i = 0; i < mine.size(); i++) {
                    assertSameJob(r.get(at).get(i), mine.get(i));
                }
                at++;
            }
        }
        for (String id : m.all()) {
            Job job = queue.getJob(id);
            assertSameJob(r.get(at), job);
            assertEquals(job.getState().wireName(), r.get(at++).get("state").asText());
        }
        assertExpectedFields(queue, m);
    }

    /** What each state left in the job, as both sides read it (they agree, checked above). */
    private static void assertExpectedFields(Queue queue, Made m) {
        Job ok = queue.getJob(m.ok1);
        assertEquals(Map.of("r", 1), ok.returnValue(Map.class));
        assertEquals(42, ok.progress());
        assertNotNull(ok.finishedOn());
        Job bad = queue.getJob(m.bad);
        assertEquals(2, bad.attemptsMade());
        assertEquals(2, bad.stacktrace().size());
        assertNotNull(bad.failedReason());
        Job act = queue.getJob(m.act);
        assertEquals(1, act.attemptsStarted());
        assertNotNull(act.processedOn());
        assertNull(act.finishedOn());
        assertEquals(7, queue.getJob(m.w1).progress());
        assertEquals(3, queue.getJob(m.p1).priority());
        Job d = queue.getJob(m.d1);
        assertEquals(Duration.ofMinutes(1), d.delay());
        assertEquals(Map.of("step", "x"), d.progress());
    }
}
