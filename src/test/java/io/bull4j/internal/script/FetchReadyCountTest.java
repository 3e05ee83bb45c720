package io.bull4j.internal.script;

import io.bull4j.internal.keys.QueueKeys;
import io.bull4j.internal.redis.RedisLink;
import io.bull4j.support.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The fetch transition tells the worker how many more jobs were ready (so that it can fill its free slots in one
 * round of calls), and takes the ready marker away with the last ready job, leaving a delay marker alone.
 */
class FetchReadyCountTest {
    private static RedisLink link;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> plain;

    @BeforeAll
    static void connect() {
        link = RedisLink.open(RedisTestServer.get().bull4jUri(), Duration.ofSeconds(10));
        client = RedisClient.create(RedisTestServer.get().uri());
        plain = client.connect();
    }

    @AfterAll
    static void close() {
        plain.close();
        client.shutdown();
        link.close();
    }

    private static RedisCommands<String, String> redis() {
        return plain.sync();
    }

    private static FetchedJob fetch(QueueKeys k, int n) throws Exception {
        return MoveToActive.run(link.scripts(), k, System.currentTimeMillis(), "token:" + n, 30_000, null)
                .get(10, TimeUnit.SECONDS);
    }

    private static void add(QueueKeys k, int n, long delayMs) throws Exception {
        List<AddJob.Spec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            specs.add(new AddJob.Spec(null, "n", System.currentTimeMillis(), "{}", "{}", delayMs, 0, false));
        }
        AddJob.run(link.scripts(), k, specs).get(10, TimeUnit.SECONDS);
    }

    @Test
    void eachFetchCountsTheJobsStillReady() throws Exception {
        QueueKeys k = new QueueKeys("bull", RedisTestServer.uniqueQueueName("ready"));
        add(k, 3, 0);
        assertEquals(0.0, redis().zscore(k.marker(), "0"));
        FetchedJob first = fetch(k, 1);
        assertEquals("1", first.id());
        assertEquals(2, first.readyCount());
        assertEquals(0.0, redis().zscore(k.marker(), "0"), "jobs are still ready: the marker stays");
        assertEquals(1, fetch(k, 2).readyCount());
        FetchedJob last = fetch(k, 3);
        assertEquals("3", last.id());
        assertEquals(0, last.readyCount());
        assertNull(redis().zscore(k.marker(), "0"), "the last ready job took the ready marker with it");
        FetchedJob none = fetch(k, 4);
        assertFalse(none.isPresent());
        assertEquals(List.of("1", "2", "3"), redis().lrange(k.active(), 0, -1).stream().sorted().toList());
    }

    @Test
    void takingTheLastReadyJobLeavesTheDelayMarker() throws Exception {
        QueueKeys k = new QueueKeys("bull", RedisTestServer.uniqueQueueName("ready-delay"));
        add(k, 1, 60_000);
        Double due = redis().zscore(k.marker(), "1");
        assertNotNull(due, "a delayed job sets the delay marker");
        add(k, 1, 0);
        FetchedJob job = fetch(k, 1);
        assertEquals("2", job.id());
        assertEquals(0, job.readyCount());
        assertNull(redis().zscore(k.marker(), "0"));
        assertEquals(due, redis().zscore(k.marker(), "1"), "the delay marker still names the delayed job");
    }

    @Test
    void anEmptyFetchClearsAStaleReadyMarker() throws Exception {
        QueueKeys k = new QueueKeys("bull", RedisTestServer.uniqueQueueName("ready-stale"));
        redis().zadd(k.marker(), 0, "0");
        FetchedJob none = fetch(k, 1);
        assertFalse(none.isPresent());
        assertNull(redis().zscore(k.marker(), "0"), "a worker woken by it would only fetch nothing again");
    }
}
