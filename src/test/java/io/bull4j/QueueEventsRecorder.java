package io.bull4j;

import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static io.bull4j.TestSupport.redis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A listener for the QueueEvents tests: keeps what it was given (and on which thread), and waits for events. */
final class QueueEventsRecorder implements QueueEventListener {
    static final Duration WAIT = Duration.ofSeconds(20);

    private final List<QueueEvent> events = new ArrayList<>(); // guarded by this
    private final List<String> threads = new ArrayList<>(); // guarded by this

    @Override
    public synchronized void onEvent(QueueEvent event) {
        events.add(event);
        threads.add(Thread.currentThread().getName());
        notifyAll();
    }

    synchronized List<QueueEvent> events() {
        return new ArrayList<>(events);
    }

    synchronized List<String> threads() {
        return new ArrayList<>(threads);
    }

    /** The first event of this type (about this job, unless null), waiting for it at most {@link #WAIT}. */
    QueueEvent await(QueueEvent.Type type, String jobId) throws InterruptedException {
        return await(e -> e.type() == type && (jobId == null || jobId.equals(e.jobId())), type + " of " + jobId);
    }

    synchronized QueueEvent await(Predicate<QueueEvent> match, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (QueueEvent e : events) {
                if (match.test(e)) {
                    return e;
                }
            }
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new AssertionError("no event " + what + " within " + WAIT + "; got " + events);
            }
            wait(left);
        }
    }

    /** The event types delivered about one job, in order. */
    synchronized List<QueueEvent.Type> typesOf(String jobId) {
        return events.stream().filter(e -> jobId.equals(e.jobId())).map(QueueEvent::type)
                .collect(Collectors.toList());
    }

    /**
     * What was delivered is a run of the stream without gaps, in stream order, each event carrying its entry's
     * fields; events written after the last one delivered do not matter.
     */
    synchronized void assertMatchesStream(String queue) {
        List<StreamMessage<String, String>> stream = redis().xrange("bull:" + queue + ":events",
                Range.create("-", "+"));
        List<String> ids = stream.stream().map(StreamMessage::getId).collect(Collectors.toList());
        List<String> delivered = events.stream().map(QueueEvent::id).collect(Collectors.toList());
        int from = delivered.isEmpty() ? 0 : ids.indexOf(delivered.get(0));
        assertTrue(from >= 0, "the first event delivered is in the stream");
        assertEquals(ids.subList(from, Math.min(ids.size(), from + delivered.size())), delivered,
                "a run of the stream, in order");
        for (int i = 0; i < delivered.size(); i++) {
            Map<String, String> body = new LinkedHashMap<>(stream.get(from + i).getBody());
            QueueEvent e = events.get(i);
            assertEquals(body.remove("event"), e.eventName());
            assertEquals(body, e.fields());
        }
    }
}
