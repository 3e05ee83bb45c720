package io.bull4j;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;

/** WorkerOptions as values: defaults, derived defaults, toBuilder round trips. */
class WorkerOptionsTest {
    @Test
    void defaultsAreBullMqs() {
        WorkerOptions o = WorkerOptions.DEFAULTS;
        assertEquals(1, o.concurrency());
        assertEquals(Duration.ofSeconds(30), o.lockDuration());
        assertEquals(Duration.ofSeconds(15), o.lockRenewTime());
        assertEquals(Duration.ofSeconds(30), o.stalledInterval());
        assertEquals(Duration.ofSeconds(1), o.stalledSweepInterval(), "bull4j's sweep between stalled passes");
        assertEquals(1, o.maxStalledCount());
        assertEquals(Duration.ofSeconds(5), o.drainDelay());
        assertTrue(o.autorun());
        assertEquals("bull", o.prefix());
    }

    @Test
    void derivedLockRenewTimeFollowsANewLockDurationThroughToBuilder() {
        WorkerOptions shorter = WorkerOptions.DEFAULTS.toBuilder().lockDuration(Duration.ofSeconds(10)).build();
        assertEquals(Duration.ofSeconds(5), shorter.lockRenewTime());
        WorkerOptions longer = shorter.toBuilder().lockDuration(Duration.ofSeconds(60)).build();
        assertEquals(Duration.ofSeconds(30), longer.lockRenewTime());

        WorkerOptions explicit = WorkerOptions.builder().lockRenewTime(Duration.ofSeconds(2)).build();
        assertEquals(Duration.ofSeconds(2), explicit.toBuilder().lockDuration(Duration.ofSeconds(60)).build()
                .lockRenewTime(), "an explicit value is kept");
    }

    @Test
    void toBuilderRoundTripsEqual() {
        WorkerOptions o = WorkerOptions.builder().concurrency(4).name("w1").drainDelay(Duration.ofSeconds(2))
                .removeOnComplete(KeepJobs.count(10)).removeOnFail(KeepJobs.age(Duration.ofHours(1))).build();
        assertEquals(o, o.toBuilder().build());
        assertEquals(o.hashCode(), o.toBuilder().build().hashCode());
        assertNotEquals(o, o.toBuilder().concurrency(5).build());
        assertTrue(o.toString().contains("concurrency=4"));
        WorkerOptions noSweep = o.toBuilder().stalledSweepInterval(Duration.ZERO).build();
        assertEquals(Duration.ZERO, noSweep.stalledSweepInterval(), "zero turns the sweep off");
        assertEquals(noSweep, noSweep.toBuilder().build());
        assertNotEquals(o, noSweep);
    }
}
