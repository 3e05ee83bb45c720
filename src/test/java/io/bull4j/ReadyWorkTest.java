package io.bull4j;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.*;

/** The hand-off of ready work to processor threads: nothing lost or run twice, order kept, no item held back. */
class ReadyWorkTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<ExecutorService> pools = new ArrayList<>();

    @AfterEach
    void stop() {
        timer.shutdownNow();
        pools.forEach(ExecutorService::shutdownNow);
    }

    private ExecutorService pool(int max) {
        ExecutorService p = new ThreadPoolExecutor(0, max, 60, TimeUnit.SECONDS, new SynchronousQueue<>());
        pools.add(p);
        return p;
    }

    private static ReadyWork.Item item(Runnable run, Runnable reject) {
        return new ReadyWork.Item() {
            @Override
            public void run() {
                run.run();
            }

            @Override
            public void reject() {
                reject.run();
            }
        };
    }

    /** An item that counts down {@code started}, then blocks until {@code release}. */
    private static Runnable blockingUntil(CountDownLatch started, CountDownLatch release) {
        return () -> {
            started.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    @Test
    void everyItemFromManySubmittersRunsExactlyOnce() throws Exception {
        ReadyWork work = new ReadyWork(pool(Integer.MAX_VALUE), timer);
        int submitters = 4;
        int each = 20_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(submitters * each);
        CountDownLatch done = new CountDownLatch(submitters * each);
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < submitters; s++) {
            int base = s * each;
            Thread t = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    int n = base + i;
                    work.submit(item(() -> {
                        runs.incrementAndGet(n);
                        done.countDown();
                    }, () -> fail("rejected")));
                    if (i % 1000 == 0) {
                        Thread.yield(); // let the drainers run dry now and then, so that threads leave and return
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), "all items ran; left: " + done.getCount());
        for (int i = 0; i < runs.length(); i++) {
            assertEquals(1, runs.get(i), "item " + i);
        }
    }

    /** Rounds of a few items, each waited for: the drainers leave between rounds, so a lost wake-up would hang. */
    @Test
    void itemsSubmittedWhileTheLastThreadLeavesAreNotLost() throws Exception {
        ReadyWork work = new ReadyWork(pool(Integer.MAX_VALUE), timer);
        for (int round = 0; round < 20_000; round++) {
            int n = 1 + round % 3;
            CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                work.submit(item(done::countDown, () -> fail("rejected")));
            }
            assertTrue(done.await(5, TimeUnit.SECONDS), "round " + round + ": " + done.getCount() + " of " + n
                    + " items never ran");
        }
    }

    /** One thread takes the items in the order they came (with several, their runs overlap). */
    @Test
    void itemsAreTakenInTheOrderGiven() throws Exception {
        ReadyWork work = new ReadyWork(pool(1), timer);
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(5_000);
        for (int i = 0; i < 5_000; i++) {
            int n = i;
            work.submit(item(() -> {
                ran.add(n);
                done.countDown();
            }, () -> fail("rejected")));
        }
        assertTrue(done.await(30, TimeUnit.SECONDS));
        for (int i = 0; i < ran.size(); i++) {
            assertEquals(i, ran.get(i), "item run at " + i);
        }
    }

    @Test
    void aBlockingItemDoesNotHoldBackTheOthers() throws Exception {
        ReadyWork work = new ReadyWork(pool(Integer.MAX_VALUE), timer);
        int blocked = 50;
        CountDownLatch allBlocked = new CountDownLatch(blocked);
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < blocked; i++) {
            work.submit(item(blockingUntil(allBlocked, release), () -> { }));
        }
        // each blocking item got a thread of its own while the others were still queued
        try {
            assertTrue(allBlocked.await(30, TimeUnit.SECONDS), "blocked at once: " + (blocked - allBlocked.getCount()));
            CountDownLatch after = new CountDownLatch(1);
            work.submit(item(after::countDown, () -> { }));
            assertTrue(after.await(30, TimeUnit.SECONDS), "an item behind blocked ones ran");
        } finally {
            release.countDown();
        }
    }

    @Test
    void aFullPoolIsAskedAgainAndNothingIsRejected() throws Exception {
        ExecutorService one = pool(1);
        ReadyWork work = new ReadyWork(one, timer);
        CountDownLatch firstRuns = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger rejected = new AtomicInteger();
        work.submit(item(blockingUntil(firstRuns, release), rejected::incrementAndGet));
        assertTrue(firstRuns.await(10, TimeUnit.SECONDS));
        // the pool's only thread is busy: the next item's thread is refused, and asked for again later
        CountDownLatch second = new CountDownLatch(1);
        work.submit(item(second::countDown, rejected::incrementAndGet));
        assertFalse(second.await(50, TimeUnit.MILLISECONDS), "no thread to run it yet");
        release.countDown();
        assertTrue(second.await(10, TimeUnit.SECONDS), "ran once the pool had a thread");
        assertEquals(0, rejected.get());
    }

    @Test
    void afterTheExecutorIsShutDownItemsAreRejectedNotLost() {
        ExecutorService p = pool(Integer.MAX_VALUE);
        p.shutdown();
        ReadyWork work = new ReadyWork(p, timer);
        ConcurrentHashMap<Integer, String> outcome = new ConcurrentHashMap<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            work.submit(item(() -> outcome.put(n, "ran"), () -> outcome.put(n, "rejected")));
        }
        assertEquals(3, outcome.size());
        outcome.values().forEach(v -> assertEquals("rejected", v));
    }
}
