package io.bull4j;

/**
 * Where a job is, with BullMQ's state names ({@link #wireName()}). Used to ask {@link Queue} for counts and
 * listings, and answered by {@link Job#getState()}.
 *
 * <pre>{@code
 * if (queue.getJob(id).getState() == JobState.FAILED) { ... }
 * Map<JobState, Long> counts = queue.getJobCounts(JobState.WAITING, JobState.ACTIVE);
 * }</pre>
 */
public enum JobState {
    /** In the wait list, ready for a worker. */
    WAITING("waiting"),
    /** Ready, in the prioritized set (a job with a priority). */
    PRIORITIZED("prioritized"),
    /** Not due yet: delayed at add, or waiting for a retry's backoff. */
    DELAYED("delayed"),
    /** Being processed by a worker, which holds its lock. */
    ACTIVE("active"),
    /** Processed successfully. */
    COMPLETED("completed"),
    /** Failed, with no attempt left (or failed for good). */
    FAILED("failed"),
    /** Waiting for its children to complete (BullMQ flows; bull4j reads, never creates, such jobs). */
    WAITING_CHILDREN("waiting-children"),
    /**
     * The legacy {@code paused} list, where older BullMQ versions parked waiting jobs while the queue was paused
     * (BullMQ 6 and bull4j keep them in wait and mark the queue paused, see {@link Queue#isPaused()}). Counts and
     * listings of it answer what BullMQ's {@code getJobCounts('paused')} and {@code getJobs('paused')} answer; a
     * job in it reports {@link #WAITING} from {@link Job#getState()}, as in BullMQ, and resuming the queue moves
     * it to wait.
     */
    PAUSED("paused"),
    /** The job does not exist (any more). */
    UNKNOWN("unknown");

    private final String wireName;

    JobState(String wireName) {
        this.wireName = wireName;
    }

    /** {@return the name BullMQ uses for this state} */
    public String wireName() {
        return wireName;
    }

    /**
     * The state of a BullMQ state name ({@code "wait"} included).
     *
     * @param name a state name as BullMQ writes it
     * @return the state; {@link #UNKNOWN} for any other name
     */
    public static JobState fromWireName(String name) {
        for (JobState s : values()) {
            if (s.wireName.equals(name) || (s == WAITING && "wait".equals(name))) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
