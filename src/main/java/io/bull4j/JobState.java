package io.bull4j;

/** Where a job is, with BullMQ's state names ({@link #wireName()}). */
public enum JobState {
    WAITING("waiting"),
    PRIORITIZED("prioritized"),
    DELAYED("delayed"),
    ACTIVE("active"),
    COMPLETED("completed"),
    FAILED("failed"),
    WAITING_CHILDREN("waiting-children"),
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
