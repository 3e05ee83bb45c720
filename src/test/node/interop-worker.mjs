// The real bullmq as a worker and as an admin client, for the Java interop tests of io.bull4j.interop
// (InteropWorker*Test, InteropAdmin*Test). Contract: stdout carries only JSON, one object per line;
// everything else goes to stderr; every command ends by itself (a bounded timeout exits with code 2).
// Usage: node interop-worker.mjs <command> <redisUrl> <queue> <json>  (see USAGE)
import { Queue, QueueEvents, Worker, Job, UnrecoverableError } from 'bullmq';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  worker <url> <queue> <specJson>   run a Worker as the spec says (see runWorker), one line per event
  ops    <url> <queue> <opsJson>    run a list of Queue operations in order, one line per operation`;

console.log = (...args) => console.error(...args); // a stray log must not corrupt the JSON stream
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

const [command, url, queueName, json] = process.argv.slice(2);
if (!command || !url || !queueName) {
  console.error(USAGE);
  process.exit(64);
}
const connection = { url };
const nul = (v) => (v === undefined || Number.isNaN(v) ? null : v);

/** A job as bullmq decoded it, every field named (null when bullmq has none), for field-by-field checks. */
function jobJson(job) {
  return {
    id: job.id, name: job.name, data: job.data, opts: job.opts, progress: nul(job.progress),
    attemptsMade: nul(job.attemptsMade), attemptsStarted: nul(job.attemptsStarted),
    stalledCounter: nul(job.stalledCounter), timestamp: nul(job.timestamp), processedOn: nul(job.processedOn),
    finishedOn: nul(job.finishedOn), returnvalue: nul(job.returnvalue), failedReason: nul(job.failedReason),
    delay: nul(job.delay), priority: nul(job.priority), stacktrace: nul(job.stacktrace),
    processedBy: nul(job.processedBy), deferredFailure: nul(job.deferredFailure),
  };
}

/**
 * spec: { opts: worker options (lockDuration, stalledInterval, drainDelay, concurrency, maxStalledCount, name),
 *   maxStarts: close after this many processor calls, exit once they all settled,
 *   finals: exit after this many final outcomes (completed, or failed for good),
 *   stalls: exit after this many jobs were found stalled (by this worker's stalled check),
 *   fail: { attempts: fail while job.attemptsMade < attempts (absent: always), message, unrecoverable,
 *           names: only jobs with these names (absent: all) },
 *   hang: never finish a job (the test SIGKILLs us), progress: reported before the outcome,
 *   hold: { name, waiting, paused, ms, attempts }: a job of that name (or any name in a list) first waits
 *         until the queue has that many waiting jobs, or (paused: true) until the queue is paused, or for `ms`
 *         milliseconds; with `attempts`, only while job.attemptsMade < attempts,
 *   workMs: each job takes this long (a timer), then an end line is written,
 *   rateLimitOnce: { ms }: a job's first attempt calls worker.rateLimit(ms) and throws RateLimitError,
 *   returnvalue, timeoutMs (default 30000) }
 * Lines: ready, start {at, job}, end {at, id}, threw {at, id}, completed {job, result}, failed {job, err, final},
 * stalled {jobId, prev}.
 */
async function runWorker(spec) {
  const fail = spec.fail;
  const timeoutMs = spec.timeoutMs ?? 30000;
  let starts = 0;
  let settled = 0;
  let finals = 0;
  let stalls = 0;
  let worker;
  let done;
  const exited = new Promise((resolve) => { done = resolve; });
  let exiting = false;
  const finish = async (code) => {
    if (exiting) {
      return;
    }
    exiting = true;
    clearTimeout(timer);
    await worker.close(code !== 0).catch((err) => console.error('close failed:', err));
    done(code);
  };
  const timer = setTimeout(() => {
    console.error(`timeout after ${timeoutMs} ms: ${starts} starts, ${settled} settled, ${finals} finals`);
    finish(2);
  }, timeoutMs);
  const check = () => {
    if ((spec.maxStarts && starts >= spec.maxStarts && settled >= starts) || (spec.finals && finals >= spec.finals)
      || (spec.stalls && stalls >= spec.stalls)) {
      finish(0);
    }
  };
  worker = new Worker(queueName, async (job) => {
    starts++;
    out({ ev: 'start', at: Date.now(), job: jobJson(job) });
    if (spec.maxStarts && starts >= spec.maxStarts) {
      worker.close().catch((err) => console.error('close failed:', err)); // takes no next job; waits for this one
    }
    if (spec.hang) {
      return new Promise(() => {});
    }
    if (spec.hold && [spec.hold.name].flat().includes(job.name)
      && (spec.hold.attempts === undefined || job.attemptsMade < spec.hold.attempts)) {
      await holdUntil(spec.hold);
    }
    if (spec.progress !== undefined) {
      await job.updateProgress(spec.progress);
    }
    if (spec.rateLimitOnce && job.attemptsStarted <= 1) {
      // 'at' is taken before the call: the limit's window starts after it, however late the loop resumes here
      const at = Date.now();
      await worker.rateLimit(spec.rateLimitOnce.ms);
      out({ ev: 'threw', at, id: job.id });
      throw Worker.RateLimitError();
    }
    if (spec.workMs) {
      await new Promise((resolve) => setTimeout(resolve, spec.workMs));
      out({ ev: 'end', at: Date.now(), id: job.id });
    }
    const failing = fail && (fail.attempts === undefined || job.attemptsMade < fail.attempts)
      && (!fail.names || fail.names.includes(job.name));
    if (failing) {
      const message = `${fail.message ?? 'node failed'}`;
      out({ ev: 'threw', at: Date.now(), id: job.id });
      throw fail.unrecoverable ? new UnrecoverableError(message) : new Error(message);
    }
    return spec.returnvalue;
  }, { ...spec.opts, connection });
  worker.on('error', (err) => console.error('worker error:', err));
  worker.on('stalled', (jobId, prev) => {
    stalls++;
    out({ ev: 'stalled', jobId, prev });
    check();
  });
  worker.on('completed', (job, result) => {
    settled++;
    finals++;
    out({ ev: 'completed', job: jobJson(job), result: nul(result) });
    check();
  });
  worker.on('failed', (job, err) => {
    settled++;
    const final = job?.finishedOn != null; // a retried attempt leaves finishedOn unset
    if (final) {
      finals++;
    }
    out({ ev: 'failed', job: job ? jobJson(job) : null, err: err?.message ?? null, final });
    check();
  });
  await worker.waitUntilReady();
  out({ ev: 'ready' });
  return exited;
}

/**
 * Polls (every 20 ms) until the queue has `waiting` waiting jobs, or is paused, or `ms` passed: lets a test act
 * mid-job, or lets time pass during an attempt.
 */
async function holdUntil({ waiting, paused, ms }) {
  const queue = new Queue(queueName, { connection });
  const until = ms === undefined ? undefined : Date.now() + ms;
  const ready = async () => {
    if (until !== undefined) {
      return Date.now() >= until;
    }
    return paused ? queue.isPaused() : (await queue.getWaitingCount()) >= waiting;
  };
  try {
    while (!(await ready())) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await queue.close();
  }
}

/** One Queue operation; returns what to print for it. */
async function runOp(queue, op) {
  switch (op.op) {
    case 'add': {
      const job = await queue.add(op.name, op.data ?? {}, op.opts);
      return jobJson(job);
    }
    case 'getJob': {
      const job = await Job.fromId(queue, op.id);
      return job ? { ...jobJson(job), state: await job.getState() } : { missing: true };
    }
    case 'progress':
      await (await Job.fromId(queue, op.id)).updateProgress(op.value);
      return true;
    case 'dump': {
      const jobs = await queue.getJobs(op.types);
      const states = {};
      for (const job of jobs) {
        states[job.id] = await job.getState();
      }
      return { counts: await queue.getJobCounts(), jobs: jobs.map(jobJson), states };
    }
    case 'counts':
      return queue.getJobCounts(...(op.types ?? []));
    case 'count':
      return queue.count();
    case 'getJobs':
      return (await queue.getJobs(op.types, op.start, op.end, op.asc)).map(jobJson);
    case 'pause':
      return queue.pause();
    case 'resume':
      return queue.resume();
    case 'isPaused':
      return queue.isPaused();
    case 'clean':
      return queue.clean(op.grace, op.limit, op.type);
    case 'drain':
      return queue.drain(op.delayed);
    case 'obliterate':
      return queue.obliterate({ force: op.force });
    case 'remove':
      return queue.remove(op.id);
    case 'changePriority':
      await (await Job.fromId(queue, op.id)).changePriority({ priority: op.priority, lifo: op.lifo });
      return true;
    case 'promote':
      await (await Job.fromId(queue, op.id)).promote();
      return true;
    case 'changeDelay':
      await (await Job.fromId(queue, op.id)).changeDelay(op.delay);
      return true;
    case 'retry':
      await (await Job.fromId(queue, op.id)).retry(op.state);
      return true;
    case 'setGlobalConcurrency':
      await queue.setGlobalConcurrency(op.concurrency);
      return true;
    case 'getGlobalConcurrency':
      return queue.getGlobalConcurrency();
    case 'setGlobalRateLimit':
      await queue.setGlobalRateLimit(op.max, op.duration);
      return true;
    case 'getGlobalRateLimit':
      return queue.getGlobalRateLimit();
    case 'getRateLimitTtl':
      return queue.getRateLimitTtl(op.maxJobs);
    case 'isMaxed':
      return queue.isMaxed();
    case 'getDeduplicationJobId':
      return queue.getDeduplicationJobId(op.id);
    case 'removeDeduplicationKey':
      return queue.removeDeduplicationKey(op.id);
    case 'waitUntilFinished': // a Job object as add returned it, even if the job is gone since
      return waitUntilFinished(new Job(queue, op.name ?? 'job', {}, {}, op.id), op.ttl ?? 20000);
    default:
      throw new Error(`unknown op ${op.op}`);
  }
}

/** job.waitUntilFinished on a QueueEvents of its own: { returnvalue } or { error } (bullmq's message). */
async function waitUntilFinished(job, ttl) {
  const events = new QueueEvents(queueName, { connection });
  try {
    await events.waitUntilReady();
    return { returnvalue: nul(await job.waitUntilFinished(events, ttl)) };
  } catch (e) {
    return { error: e.message };
  } finally {
    await events.close();
  }
}

async function runOps(ops) {
  const queue = new Queue(queueName, { connection });
  try {
    for (const op of ops) {
      out({ op: op.op, result: nul(await runOp(queue, op)) });
    }
    return 0;
  } finally {
    await queue.close();
  }
}

const commands = { worker: () => runWorker(JSON.parse(json ?? '{}')), ops: () => runOps(JSON.parse(json ?? '[]')) };
dispatch('interop-worker.mjs', commands, command, USAGE);
