package io.bull4j;

import java.util.List;

/**
 * A page of a job's log lines ({@link Job#log(String)}, BullMQ's {@code job.log}) and how many it has in all, as
 * {@link Queue#getJobLogs(String, long, long, boolean)} and BullMQ's {@code getJobLogs} read them. Immutable.
 *
 * <pre>{@code
 * JobLogs last10 = queue.getJobLogs(jobId, 0, 9, false);   // the ten newest lines, newest first
 * }</pre>
 *
 * @param logs the lines of the page, in the order asked
 * @param count how many lines the job's log holds
 */
public record JobLogs(List<String> logs, long count) {
    /**
     * A copy-safe instance.
     *
     * @param logs the lines of the page
     * @param count how many lines the log holds
     */
    public JobLogs {
        logs = List.copyOf(logs);
    }
}
