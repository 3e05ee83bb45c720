package io.bull4j;

/**
 * Where a job is, with BullMQ's state names ({@link #wireName()}). Used to ask {@link Queue} for counts and
 * listings, and answered by {@link Job#getState()}.
 */
public enum JobState {
    WAITING("waiting"),
    PRIORITIZED("prioritized"),
    DELAYED("delayed"),
    ACTIVE("active"),
    COMPLETED("completed"),
    FAILED("failed"),
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

    public String wireName() {
        return wireName;
    }

    public static JobState fromWireName(String name) {
        for (JobState s : values()) {
            if (s.wireName.equals(name) || (s == WAITING && "wait".equals(name))) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
