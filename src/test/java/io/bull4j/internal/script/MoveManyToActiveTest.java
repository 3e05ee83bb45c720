package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.RedisLink;
import io.bull4j.support.RedisTestServer;
import io.bull4j.support.TestRedis;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * One moveManyToActive call takes what that many moveToActive calls at the same now would take, leaving the same
 * state (jobs, locks, lists, markers, events), and stops where they would start coming back empty: no job left,
 * a global concurrency reached, the rate limit.
 */
class MoveManyToActiveTest {
    private static final long LOCK_MS = 30_000;
    private static RedisLink link;

    @BeforeAll
    static void connect() {
        link = RedisLink.open(RedisTestServer.get().bull4jUri(), Duration.ofSeconds(10));
    }

    @AfterAll
    static void close() {
        link.close();
    }

    private static RedisCommands<String, String> redis() {
        return TestRedis.redis();
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    private static List<String> tokens(int n) {
        List<String> t = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            t.add("t:" + i);
        }
        return t;
    }

    /** A fresh queue with five waiting jobs, one prioritized and one delayed job (due 5 ms after {@code t}). */
    private static QueueKeys prepared(String hint, long t) throws Exception {
        QueueKeys k = new QueueKeys("bull", RedisTestServer.uniqueQueueName(hint));
        List<AddJob.Spec> specs = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            specs.add(new AddJob.Spec("w" + i, "n", t, "{\"i\":" + i + "}", "{}", 0, 0, false));
        }
        specs.add(new AddJob.Spec("p1", "n", t, "{}", "{\"priority\":2}", 0, 2, false));
        specs.add(new AddJob.Spec("d1", "n", t, "{}", "{\"delay\":5}", 5, 0, false));
        await(AddJob.run(link.scripts(), k, specs));
        return k;
    }

    /** The queue's state under names without its own: lists, sets, markers, job hashes, locks, events. */
    private static Map<String, Object> state(QueueKeys k, List<String> ids) {
        Map<String, Object> s = new TreeMap<>();
        s.put("wait", redis().lrange(k.waitList(), 0, -1));
        s.put("active", redis().lrange(k.active(), 0, -1));
        s.put("prioritized", redis().zrangeWithScores(k.prioritized(), 0, -1));
        s.put("delayed", redis().zrangeWithScores(k.delayed(), 0, -1));
        s.put("marker", redis().zrangeWithScores(k.marker(), 0, -1));
        s.put("pc", String.valueOf(redis().get(k.priorityCounter())));
        for (String id : ids) {
            s.put("job " + id, redis().hgetall(k.base() + id));
            s.put("lock " + id, String.valueOf(redis().get(k.base() + id + ":lock")));
        }
        List<Map<String, String>> events = new ArrayList<>();
        for (StreamMessage<String, String> m : redis().xrange(k.events(), Range.create("-", "+"))) {
            events.add(m.getBody());
        }
        s.put("events", events);
        return s;
    }

    @Test
    void takesWhatSingleFetchesAtTheSameNowTake() throws Exception {
        long t = System.currentTimeMillis();
        long now = t + 10;
        QueueKeys many = prepared("many-take", t);
        QueueKeys single = prepared("many-single", t);
        List<FetchedJob> taken = await(MoveManyToActive.run(link.scripts(), many, now, tokens(9), LOCK_MS, "w",
                0, 0));
        List<FetchedJob> one = new ArrayList<>();
        for (String token : tokens(8)) {
            one.add(await(MoveToActive.run(link.scripts(), single, now, token, LOCK_MS, "w")));
        }
        assertEquals(8, taken.size(), "seven jobs, then the take that found none (the ninth token unused)");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            assertTrue(taken.get(i).isPresent());
            assertEquals(one.get(i).id(), taken.get(i).id(), "take " + i);
            assertEquals(one.get(i).fields(), taken.get(i).fields(), "the fields of " + taken.get(i).id());
            ids.add(taken.get(i).id());
        }
        assertEquals(List.of("d1", "p1", "w1", "w2", "w3", "w4", "w5"), ids.stream().sorted().toList());
        assertFalse(taken.get(7).isPresent());
        assertFalse(one.get(7).isPresent());
        assertEquals(one.get(7).nextDelayedMs(), taken.get(7).nextDelayedMs());
        assertEquals(state(single, ids), state(many, ids));
        assertEquals("t:3", redis().get(many.base() + ids.get(2) + ":lock"), "job i holds token i");
    }

    @Test
    void fillsEveryTokenWhenEnoughAreReadyAndLeavesTheRest() throws Exception {
        long t = System.currentTimeMillis();
        QueueKeys many = prepared("many-part", t);
        QueueKeys single = prepared("many-part-single", t);
        List<FetchedJob> taken = await(MoveManyToActive.run(link.scripts(), many, t, tokens(3), LOCK_MS, "", 0,
                0));
        List<String> ids = new ArrayList<>();
        for (String token : tokens(3)) {
            ids.add(await(MoveToActive.run(link.scripts(), single, t, token, LOCK_MS, "")).id());
        }
        assertEquals(ids, taken.stream().map(FetchedJob::id).toList());
        assertEquals(state(single, ids), state(many, ids), "the ready marker stays for the jobs still waiting");
        assertEquals(0.0, redis().zscore(many.marker(), "0"));
    }

    @Test
    void stopsAtTheGlobalConcurrency() throws Exception {
        long t = System.currentTimeMillis();
        QueueKeys k = prepared("many-gc", t);
        redis().hset(k.meta(), "concurrency", "2");
        List<FetchedJob> taken = await(MoveManyToActive.run(link.scripts(), k, t, tokens(5), LOCK_MS, "", 0, 0));
        assertEquals(3, taken.size());
        assertTrue(taken.get(1).isPresent());
        assertSame(FetchedJob.NONE, taken.get(2), "maxed: no job and no delayed time");
        assertEquals(2, redis().llen(k.active()));
    }

    @Test
    void stopsAtTheRateLimit() throws Exception {
        long t = System.currentTimeMillis();
        QueueKeys k = prepared("many-rl", t);
        List<FetchedJob> taken = await(MoveManyToActive.run(link.scripts(), k, t, tokens(5), LOCK_MS, "", 2,
                60_000));
        assertEquals(3, taken.size());
        assertTrue(taken.get(0).isPresent() && taken.get(1).isPresent());
        assertFalse(taken.get(2).isPresent());
        assertTrue(taken.get(2).rateLimitMs() > 0, "the limit's wait: " + taken.get(2).rateLimitMs());
        assertEquals(2, redis().llen(k.active()));
    }
}
