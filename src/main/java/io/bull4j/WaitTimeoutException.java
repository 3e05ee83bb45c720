package io.bull4j;

import java.time.Duration;

/**
 * Thrown by {@link Job#waitUntilFinished(Duration)} when the job did not finish within the given time. The job
 * is untouched: it may still finish later. Not a Redis fault (that is a {@link RedisException}).
 */
public class WaitTimeoutException extends Bull4jException {
    private final String jobId;
    private final Duration timeout;

    public WaitTimeoutException(String queueName, String jobId, Duration timeout) {
        super("Job " + jobId + " on queue " + queueName + " did not finish within " + timeout);
        this.jobId = jobId;
        this.timeout = timeout;
    }

    public String jobId() {
        return jobId;
    }

    public Duration timeout() {
        return timeout;
    }
}
