/**
 * bull4j's API: a job queue on Redis that speaks BullMQ 6.7.0's wire format, so Java and Node services share
 * queues, jobs and events.
 *
 * <pre>{@code
 * try (Bull4jConnection redis = Bull4jConnection.create("redis://localhost:6379");
 *      Queue queue = new Queue("emails", QueueOptions.builder().connection(redis).build())) {
 *     queue.add("welcome", Map.of("to", "ana@example.com"),
 *             JobOptions.builder().attempts(3).backoff(Backoff.exponential(Duration.ofSeconds(1))).build());
 *
 *     Worker worker = new Worker("emails", job -> mailer.send(job.data(Email.class)),
 *             WorkerOptions.builder().connection(redis).concurrency(10).build());
 *     // ... on shutdown:
 *     worker.close();   // stops fetching and waits for the running jobs
 * }
 * }</pre>
 *
 * <h2>The parts</h2>
 * <ul>
 *   <li>{@link io.bull4j.Bull4jConnection}: a Redis connection (standalone or Cluster) that queues, workers and
 *       event readers share.</li>
 *   <li>{@link io.bull4j.Queue}: adds jobs ({@link io.bull4j.JobOptions}, {@link io.bull4j.BulkJob}) and
 *       administers the queue: counts, lists, pause, clean, retry, obliterate; and job schedulers, which add
 *       jobs {@code every} interval or on a cron pattern ({@link io.bull4j.RepeatOptions},
 *       {@link io.bull4j.JobTemplate}, {@link io.bull4j.JobScheduler}).</li>
 *   <li>{@link io.bull4j.Worker}: runs a {@link io.bull4j.Processor} on each job, with locks, retries
 *       ({@link io.bull4j.Backoff}, {@link io.bull4j.BackoffStrategy}) and stalled-job recovery
 *       ({@link io.bull4j.WorkerOptions}, {@link io.bull4j.WorkerListener}).</li>
 *   <li>{@link io.bull4j.Job}: a snapshot of one job, with its operations; {@link io.bull4j.JobState} says
 *       where it is.</li>
 *   <li>{@link io.bull4j.QueueEvents}: follows the queue's events stream ({@link io.bull4j.QueueEvent}), and
 *       lets callers wait for jobs to finish.</li>
 *   <li>{@link io.bull4j.Telemetry}: the tracing hook of queues and workers (BullMQ's {@code telemetry}); the
 *       package {@code io.bull4j.otel} implements it on OpenTelemetry.</li>
 * </ul>
 *
 * <h2>Conventions</h2>
 * <ul>
 *   <li>Options are immutable values from validating builders, with BullMQ's defaults; times are
 *       {@link java.time.Duration} and {@link java.time.Instant}.</li>
 *   <li>Every exception is a {@link io.bull4j.Bull4jException} (unchecked). Bad input throws a
 *       {@link io.bull4j.ValidationException} naming the field before anything is written to Redis; Redis faults
 *       throw {@link io.bull4j.RedisException}; refused job transitions throw {@link io.bull4j.JobException}.</li>
 *   <li>{@code Queue}, {@code Worker}, {@code QueueEvents} and {@code Bull4jConnection} are thread-safe and
 *       {@link java.lang.AutoCloseable}; {@code close()} is idempotent and closes only what the object opened
 *       (a connection passed in options stays open). Close the users of a shared connection before it.</li>
 *   <li>User code (processors, listeners) never runs on a Redis I/O thread; an exception a listener throws is
 *       logged and swallowed.</li>
 * </ul>
 *
 * <p>The packages under {@code io.bull4j.internal} are the implementation: not part of the API, not exported by
 * the module, and they may change in any release without notice.
 */
package io.bull4j;
