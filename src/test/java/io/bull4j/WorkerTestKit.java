package io.bull4j;

import com.fasterxml.jackson.databind.JsonNode;
import io.bull4j.internal.codec.Json;
import io.bull4j.support.TestRedis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static io.bull4j.TestSupport.redis;

/** Plumbing for the worker and add-option tests: keys, the events stream, controllable clocks, a recorder. */
final class WorkerTestKit {
    private WorkerTestKit() {
    }

    static String key(String q, String suffix) {
        return TestRedis.key(q, suffix);
    }

    /**
     * Script calls Redis has run so far (EVALSHA and EVAL, from INFO commandstats), without the failed ones: the
     * first EVALSHA of a script Redis has not loaded yet fails (NOSCRIPT) and is sent again as EVAL.
     */
    static long scriptCalls() {
        long calls = 0;
        for (String line : TestRedis.redis().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += statOf(line, "calls=") - statOf(line, "failed_calls=");
            }
        }
        return calls;
    }

    private static long statOf(String line, String name) {
        int at = line.indexOf(name);
        if (at < 0) {
            return 0;
        }
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at + name.length(), end < 0 ? line.length() : end));
    }

    static Map<String, String> hash(String q, String jobId) {
        return TestRedis.hash(q, jobId);
    }

    static List<Map<String, String>> events(String q) {
        return TestRedis.stream(q);
    }

    static List<Map<String, String>> events(String q, String event, String jobId) {
        return TestRedis.events(q, event, jobId);
    }

    static List<String> eventNames(String q, String jobId) {
        return TestRedis.eventNames(q, jobId);
    }

    static JsonNode json(String text) {
        return Json.tree(text);
    }

    static long idCounter(String q) {
        String v = redis().get(key(q, "id"));
        return v == null ? 0 : Long.parseLong(v);
    }

    /** A clock that stands still until the test moves it, so delays and ages are decided by the test. */
    static final class ManualClock extends Clock {
        private final AtomicLong millis;

        ManualClock(long startMillis) {
            this.millis = new AtomicLong(startMillis);
        }

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /** Real time, but never the same millisecond twice: finish times are strictly ordered. */
    static final class TickingClock extends Clock {
        private final AtomicLong last = new AtomicLong();

        @Override
        public long millis() {
            return last.updateAndGet(prev -> Math.max(prev + 1, System.currentTimeMillis()));
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    /** Records worker callbacks as "event:jobId@thread" lines, and failures by job. */
    static final class Recorder implements WorkerListener {
        final ConcurrentLinkedQueue<String> calls = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();

        private void note(String event, String jobId) {
            calls.add(event + ":" + jobId + "@" + Thread.currentThread().getName());
        }

        @Override
        public void onActive(Job job) {
            note("active", job.id());
        }

        @Override
        public void onProgress(Job job, Object progress) {
            note("progress", job.id());
        }

        @Override
        public void onCompleted(Job job, Object result) {
            note("completed", job.id());
        }

        @Override
        public void onFailed(Job job, Throwable error) {
            note("failed", job.id());
        }

        @Override
        public void onStalled(String jobId) {
            note("stalled", jobId);
        }

        @Override
        public void onDrained() {
            note("drained", "-");
        }

        @Override
        public void onError(Throwable error) {
            errors.add(error);
            note("error", "-");
        }

        @Override
        public void onClosed() {
            note("closed", "-");
        }

        long count(String event) {
            return calls.stream().filter(c -> c.startsWith(event + ":")).count();
        }
    }
}
