package io.bull4j;

import java.time.Duration;

/** A queue's global rate limit ({@link Queue#getGlobalRateLimit()}): at most {@code max} jobs per {@code duration}. */
public record RateLimit(long max, Duration duration) {
}
