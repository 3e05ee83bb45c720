package io.bull4j;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-job events are queued only when some listener overrides their method. */
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
}
