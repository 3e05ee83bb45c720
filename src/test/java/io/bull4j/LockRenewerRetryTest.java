package io.bull4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.internal.keys.QueueKeys;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * A lock found gone by a renewal is reported to {@link WorkerListener#onError}, except while a finish of that job is
 * being tried again: an earlier try whose answer was lost may have been applied (it deletes the lock), and the
 * finish, which then sees its lease end, tells that apart and reports itself. Reporting it from the renewal too
 * told the user "another worker may run it" of a job that had completed.
 */
class LockRenewerRetryTest {
    private final String q = queueName("renew-retry");
    private final QueueContext ctx = new QueueContext(new QueueKeys("bull", q), connection().link(),
            new ObjectMapper(), Clock.systemUTC());
    private final ListenerBus bus = new ListenerBus(q);
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final LockRenewer locks = new LockRenewer(ctx, 30_000, bus);

    LockRenewerRetryTest() {
        bus.add(new WorkerListener() {
            @Override
            public void onError(Throwable error) {
                errors.add(error);
            }
        });
    }

    @Test
    void aLockGoneDuringAFinishsRetryIsLeftToTheFinish() {
        redis().set(ctx.keys.lock("retried"), "t1");
        redis().set(ctx.keys.lock("running"), "t2");
        locks.track("retried", "t1");
        locks.untrack("retried", "t1"); // its finish is sent; no answer
        locks.retrack("retried", "t1"); // renewed while the finish waits to try again
        locks.track("running", "t2");

        redis().del(ctx.keys.lock("retried"), ctx.keys.lock("running")); // the first by the finish's applied try
        locks.renewAll();
        bus.close(); // delivers what was emitted

        assertFalse(locks.mayStillHold("retried", "t1"), "the finish learns that its lease ended");
        assertFalse(locks.mayStillHold("running", "t2"));
        assertEquals(0, locks.size(), "neither is renewed again");
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).getMessage().contains("job running"), errors.get(0).getMessage());
    }

    @Test
    void aLockRenewedAfterItsFinishsRetryEndedIsReportedAgain() {
        locks.track("7", "t1");
        locks.untrack("7", "t1");
        locks.retrack("7", "t1");
        locks.untrack("7", "t1"); // the retry is sent; refused, say, and the job given back and fetched again
        locks.track("7", "t2", System.nanoTime());
        locks.renewAll(); // no lock "t2" in Redis
        bus.close();

        assertEquals(1, errors.size(), "a lost lock of a running attempt is reported: " + errors);
    }
}
