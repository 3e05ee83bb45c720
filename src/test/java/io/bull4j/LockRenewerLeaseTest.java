package io.bull4j;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The end of one attempt must not drop the lease of the next: a job retried at once can be fetched again by another
 * finish of the same worker before the thread of its first attempt has forgotten that attempt's lock. Found by
 * DifferentialTest's concurrency-40 scenario, where the second attempt was then refused as "not started" and the job
 * stayed active until its lock expired.
 */
class LockRenewerLeaseTest {
    // track, forget and mayStillHold use neither the connection nor the listeners
    private final LockRenewer locks = new LockRenewer(null, 30_000, null);

    @Test
    void forgettingAnEarlierAttemptKeepsTheLeaseOfTheNextOne() {
        locks.track("7", "first");
        locks.untrack("7", "first"); // the first attempt's outcome (a retry to wait) is being written
        locks.track("7", "second", System.nanoTime()); // fetched again meanwhile
        locks.forget("7", "first"); // the first attempt's thread ends
        assertTrue(locks.mayStillHold("7", "second"));
        assertEquals(1, locks.size(), "the second attempt's lock is still renewed");
        locks.forget("7", "second");
        assertFalse(locks.mayStillHold("7", "second"));
        assertEquals(0, locks.size());
    }

    @Test
    void theEndOfAnEarlierAttemptLeavesTheRenewalOfTheNextOneAlone() {
        locks.track("9", "first");
        locks.untrack("9", "first"); // the first attempt's outcome is being written, and is applied
        locks.track("9", "second", System.nanoTime()); // fetched again before its answer came
        locks.retrack("9", "first"); // the first attempt's write is tried again: its lock must not be renewed
        assertFalse(locks.mayStillHold("9", "first"));
        locks.untrack("9", "first"); // between its tries, and once its processor ends
        assertEquals(1, locks.size(), "the second attempt's lock is still renewed");
        assertTrue(locks.mayStillHold("9", "second"));
        locks.untrack("9", "second");
        assertEquals(0, locks.size(), "what was renewed was the second attempt's lock");
    }

    @Test
    void aFinishTriedAgainIsRenewedBetweenItsTries() {
        locks.track("10", "only");
        locks.untrack("10", "only");
        assertEquals(0, locks.size());
        locks.retrack("10", "only");
        assertEquals(1, locks.size());
        assertTrue(locks.mayStillHold("10", "only"));
    }

    @Test
    void forgettingWithoutATokenGivesUpWhateverIsHeld() {
        locks.track("8", "only");
        locks.forget("8");
        assertFalse(locks.mayStillHold("8", "only"));
        assertEquals(0, locks.size());
    }
}
