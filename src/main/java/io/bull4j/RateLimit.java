package io.bull4j;

import java.time.Duration;

/**
 * A queue's global rate limit ({@link Queue#getGlobalRateLimit()}).
 *
 * @param max at most this many jobs start per window
 * @param duration the window
 */
public record RateLimit(long max, Duration duration) {
}
