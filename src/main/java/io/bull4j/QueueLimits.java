package io.bull4j;

import io.bull4j.internal.script.RateLimits;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Rate limits, global concurrency and deduplication keys of a queue, on the keys and meta fields BullMQ 6.7.0
 * uses ({@code limiter}; meta {@code max}, {@code duration}, {@code concurrency}; {@code de:<id>}). Stateless.
 */
final class QueueLimits {
    /** What BullMQ writes to the limiter for a manual rate limit: Number.MAX_SAFE_INTEGER, over any max. */
    static final String MANUAL_LIMIT = "9007199254740991";

    private final QueueContext ctx;

    QueueLimits(QueueContext ctx) {
        this.ctx = ctx;
    }

    static void checkDuration(Duration d, String field) {
        ValidationException.checkExpiry(d, field); // a window is a PEXPIRE (also in every worker's fetch)
        ValidationException.check(d != null && d.toMillis() >= 1, field, "must be at least 1 ms (was " + d + ")");
    }

    void rateLimit(Duration d) {
        checkDuration(d, "duration");
        ctx.await(ctx.redis().set(ctx.keys.limiter(), MANUAL_LIMIT,
                io.lettuce.core.SetArgs.Builder.px(d.toMillis())), "rateLimit");
    }

    void setGlobalRateLimit(int max, Duration duration) {
        ValidationException.check(max >= 1, "max", "must be >= 1 (was " + max + ")");
        checkDuration(duration, "duration");
        ctx.await(ctx.redis().hset(ctx.keys.meta(), Map.of("max", Integer.toString(max),
                "duration", Long.toString(duration.toMillis()))), "setGlobalRateLimit");
    }

    RateLimit getGlobalRateLimit() {
        List<io.lettuce.core.KeyValue<String, String>> f = ctx.await(ctx.redis().hmget(ctx.keys.meta(), "max",
                "duration"), "getGlobalRateLimit");
        String max = f.get(0).getValueOrElse(null);
        String duration = f.get(1).getValueOrElse(null);
        if (max == null || duration == null) {
            return null; // as BullMQ: both fields or no limit
        }
        return new RateLimit(parseLong(max, "max"), Duration.ofMillis(parseLong(duration, "duration")));
    }

    void removeGlobalRateLimit() {
        ctx.await(ctx.redis().hdel(ctx.keys.meta(), "max", "duration"), "removeGlobalRateLimit");
    }

    long rateLimitTtl(long maxJobs) {
        ValidationException.check(maxJobs >= 0, "maxJobs", "must be >= 0 (was " + maxJobs + ")");
        return ctx.await(RateLimits.ttl(ctx.scripts(), ctx.keys, maxJobs), "getRateLimitTtl");
    }

    boolean removeRateLimitKey() {
        return ctx.await(ctx.redis().del(ctx.keys.limiter()), "removeRateLimitKey") > 0;
    }

    void setGlobalConcurrency(int n) {
        ValidationException.check(n >= 1, "concurrency", "must be >= 1 (was " + n + ")");
        ctx.await(ctx.redis().hset(ctx.keys.meta(), "concurrency", Integer.toString(n)), "setGlobalConcurrency");
    }

    Integer getGlobalConcurrency() {
        String v = ctx.await(ctx.redis().hget(ctx.keys.meta(), "concurrency"), "getGlobalConcurrency");
        return v == null || v.isEmpty() ? null : (int) parseLong(v, "concurrency");
    }

    void removeGlobalConcurrency() {
        ctx.await(ctx.redis().hdel(ctx.keys.meta(), "concurrency"), "removeGlobalConcurrency");
    }

    boolean isMaxed() {
        return ctx.await(RateLimits.isMaxed(ctx.scripts(), ctx.keys), "isMaxed");
    }

    String deduplicationJobId(String dedupId) {
        checkDedupId(dedupId);
        return ctx.await(ctx.redis().get(ctx.keys.dedup(dedupId)), "getDeduplicationJobId");
    }

    boolean removeDeduplicationKey(String dedupId) {
        checkDedupId(dedupId);
        return ctx.await(ctx.redis().del(ctx.keys.dedup(dedupId)), "removeDeduplicationKey") > 0;
    }

    private static void checkDedupId(String dedupId) {
        ValidationException.check(dedupId != null && !dedupId.isEmpty(), "deduplicationId", "must not be empty");
    }

    private long parseLong(String v, String field) {
        try {
            return (long) Double.parseDouble(v); // BullMQ reads with Number(): "10" and "10.0" alike
        } catch (NumberFormatException e) {
            throw new Bull4jException("meta field " + field + " of queue " + ctx.name() + " is not a number: " + v);
        }
    }
}
