package io.bull4j;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The per-job events are queued only when some listener overrides their method; every event is delivered, in order,
 * on the event thread, and none is left behind when the thread goes idle between bursts or the bus closes.
 */
class ListenerBusTest {
    private static final class CompletedOnly implements WorkerListener {
        @Override
        public void onCompleted(Job job, Object result) {
        }
    }

    private static final class ActiveAndProgress implements WorkerListener {
        @Override
        public void onActive(Job job) {
        }

        @Override
        public void onProgress(Job job, Object progress) {
        }
    }

    @Test
    void wantsFollowsTheOverriddenMethodsOfTheListenersPresent() {
        ListenerBus bus = new ListenerBus("q");
        try {
            assertFalse(bus.wants(ListenerBus.ACTIVE) || bus.wants(ListenerBus.PROGRESS)
                    || bus.wants(ListenerBus.COMPLETED), "no listener");
            bus.add(new CompletedOnly());
            assertTrue(bus.wants(ListenerBus.COMPLETED));
            assertFalse(bus.wants(ListenerBus.ACTIVE), "onActive is the interface's default");
            assertFalse(bus.wants(ListenerBus.PROGRESS), "onProgress is the interface's default");

            WorkerListener both = new ActiveAndProgress();
            bus.add(both);
            assertTrue(bus.wants(ListenerBus.ACTIVE) && bus.wants(ListenerBus.PROGRESS)
                    && bus.wants(ListenerBus.COMPLETED));
            bus.remove(both);
            assertFalse(bus.wants(ListenerBus.ACTIVE) || bus.wants(ListenerBus.PROGRESS), "removed again");
            assertTrue(bus.wants(ListenerBus.COMPLETED));
        } finally {
            bus.close();
        }
    }

    @Test
    void aProxyListenerGetsEveryEvent() {
        ListenerBus bus = new ListenerBus("q");
        try {
            WorkerListener proxy = (WorkerListener) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {WorkerListener.class}, (p, m, args) -> null);
            bus.add(proxy);
            assertTrue(bus.wants(ListenerBus.ACTIVE) && bus.wants(ListenerBus.PROGRESS)
                    && bus.wants(ListenerBus.COMPLETED));
        } finally {
            bus.close();
        }
    }

    /** Records what it is given: the producer and sequence number, and the thread it runs on. */
    private static final class Recorder implements WorkerListener {
        final ConcurrentLinkedQueue<int[]> seen = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> threads = new ConcurrentLinkedQueue<>();
        final AtomicInteger count = new AtomicInteger();

        void record(int producer, int seq) {
            seen.add(new int[] {producer, seq});
            String name = Thread.currentThread().getName();
            if (!threads.contains(name)) {
                threads.add(name);
            }
            count.incrementAndGet();
        }
    }

    @Test
    void burstsFromSeveralThreadsAreAllDeliveredInOrderOnTheEventThreadAndCloseDeliversTheRest() throws Exception {
        ListenerBus bus = new ListenerBus("q");
        Recorder r = new Recorder();
        bus.add(r);
        int producers = 4;
        int each = 20_000;
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            Thread t = new Thread(() -> {
                for (int seq = 0; seq < each; seq++) {
                    int n = seq;
                    bus.emit(l -> ((Recorder) l).record(producer, n));
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        bus.close(); // delivers what is still queued
        assertEquals(producers * each, r.count.get(), "every event delivered by the time close returns");
        int[] next = new int[producers];
        for (int[] e : r.seen) {
            assertEquals(next[e[0]], e[1], "producer " + e[0] + "'s events in the order emitted");
            next[e[0]]++;
        }
        assertEquals(List.of("bull4j-events-q"), new ArrayList<>(r.threads), "only the event thread runs listeners");
    }

    @Test
    void anEventAfterAnyMixOfBurstsAndPausesIsDeliveredWithoutAnotherEmit() throws Exception {
        // a lost wake-up (an event queued as the thread goes idle) would leave a round undelivered: its wait then
        // fails. Waiting for each round lets the thread go idle between bursts of 1 to 4 events.
        ListenerBus bus = new ListenerBus("q");
        Random random = new Random(42);
        try {
            for (int round = 0; round < 3_000; round++) {
                int burst = 1 + random.nextInt(4);
                CountDownLatch delivered = new CountDownLatch(burst);
                WorkerListener l = new WorkerListener() {
                    @Override
                    public void onDrained() {
                        delivered.countDown();
                    }
                };
                bus.add(l);
                for (int i = 0; i < burst; i++) {
                    bus.emit(WorkerListener::onDrained);
                }
                assertTrue(delivered.await(5, TimeUnit.SECONDS), "round " + round + " delivered");
                bus.remove(l);
            }
        } finally {
            bus.close();
        }
    }
}
