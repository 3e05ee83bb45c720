// Drives the REAL bullmq from the Java interop tests (io.bull4j.support.NodeBullmq).
// Contract: stdout carries only JSON, one object per line; everything else goes to stderr.
// Usage: node interop.mjs <command> <redisUrl> <queue> [args...]  (see USAGE below)
import { Queue, Worker, Job, QueueEvents } from 'bullmq';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  add     <url> <queue> <name> <dataJson> [optsJson]
  process <url> <queue> <count> <returnValueJson> [workerOptsJson]
  fail    <url> <queue> <count> <message>
  getJob  <url> <queue> <id>
  counts  <url> <queue>
  hang    <url> <queue>
  events  <url> <queue> <count> [lastEventId]`;
const TIMEOUT_MS = 30_000; // overall bound for process/fail; exit code 2 when hit

// why: a stray console.log (ours or a library's) must not corrupt the JSON stream
console.log = (...args) => console.error(...args);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

const [command, url, queueName, ...rest] = process.argv.slice(2);
if (!command || !url || !queueName) {
  console.error(USAGE);
  process.exit(64);
}
const connection = { url };

// Single-use helpers: every command opens what it needs and closes it before returning.
async function withQueue(fn) {
  const queue = new Queue(queueName, { connection });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

async function add(name, dataJson, optsJson) {
  return withQueue(async (queue) => {
    const job = await queue.add(name, JSON.parse(dataJson), optsJson ? JSON.parse(optsJson) : undefined);
    out({ id: job.id, name: job.name, data: job.data, opts: job.opts });
    return 0;
  });
}

async function getJob(id) {
  return withQueue(async (queue) => {
    const job = await Job.fromId(queue, id);
    if (!job) {
      out({ missing: true });
    } else {
      out({ ...job.toJSON(), state: await job.getState(), returnvalue: job.returnvalue });
    }
    return 0;
  });
}

async function counts() {
  return withQueue(async (queue) => {
    out(await queue.getJobCounts());
    return 0;
  });
}

// Runs a worker until `count` jobs reached `event`; `body` is the processor.
// The worker starts closing as soon as the count-th job STARTS, so it does not fetch
// (and then finish) extra jobs while we wait for the last event (concurrency 1 assumed).
async function runWorker(count, event, body, workerOpts, line) {
  return new Promise((resolve) => {
    let started = 0;
    let seen = 0;
    let worker;
    const finish = async (code) => {
      clearTimeout(timer);
      try {
        await worker.close(code !== 0);
      } catch (err) {
        console.error('close failed:', err);
      }
      resolve(code);
    };
    const timer = setTimeout(() => {
      console.error(`timeout: ${seen}/${count} ${event} events after ${TIMEOUT_MS} ms`);
      finish(2);
    }, TIMEOUT_MS);
    worker = new Worker(queueName, async (job) => {
      if (++started >= count) {
        worker.close().catch((err) => console.error('close failed:', err)); // not awaited: it waits for us
      }
      return body(job);
    }, { ...workerOpts, connection });
    worker.on('error', (err) => console.error('worker error:', err));
    worker.on(event, (job, arg) => {
      out(line(job, arg));
      if (++seen >= count) {
        finish(0);
      }
    });
  });
}

async function processJobs(countStr, returnValueJson, workerOptsJson) {
  const value = JSON.parse(returnValueJson);
  const opts = workerOptsJson ? JSON.parse(workerOptsJson) : {};
  return runWorker(Number(countStr), 'completed', async () => value, opts, (job, result) => ({
    id: job.id, name: job.name, data: job.data, attemptsMade: job.attemptsMade, returnvalue: result,
  }));
}

async function failJobs(countStr, message) {
  return runWorker(Number(countStr), 'failed', async () => { throw new Error(message); }, {}, (job, err) => ({
    id: job?.id, attemptsMade: job?.attemptsMade, failedReason: job?.failedReason ?? err?.message,
  }));
}

// Takes a job and never finishes it, so the Java test can SIGKILL us mid-job (stalled-job tests).
async function hang() {
  const worker = new Worker(queueName, async (job) => {
    out({ started: job.id });
    return new Promise(() => {});
  }, { connection, lockDuration: 2000, stalledInterval: 1000 });
  worker.on('error', (err) => console.error('worker error:', err));
  return new Promise(() => {}); // runs until killed
}

// bullmq's QueueEvents emits each event under its own name (no wildcard): these are the ones it writes.
const EVENT_NAMES = ['added', 'waiting', 'active', 'progress', 'completed', 'failed', 'delayed', 'stalled',
  'removed', 'drained', 'paused', 'resumed', 'duplicated', 'deduplicated', 'retries-exhausted',
  'waiting-children', 'cleaned'];

// Reads the events stream with bullmq's own QueueEvents (from lastEventId, default '$') and prints each
// event as bullmq hands it over ({event, id, ...args}, with its parsed fields) until `count` were seen.
async function events(countStr, lastEventId) {
  const count = Number(countStr);
  const queueEvents = new QueueEvents(queueName, { connection, lastEventId, blockingTimeout: 1000 });
  queueEvents.on('error', (err) => console.error('queue events error:', err));
  return new Promise((resolve) => {
    let seen = 0;
    const finish = async (code) => {
      clearTimeout(timer);
      await queueEvents.close();
      resolve(code);
    };
    const timer = setTimeout(() => {
      console.error(`timeout: ${seen}/${count} events after ${TIMEOUT_MS} ms`);
      finish(2);
    }, TIMEOUT_MS);
    for (const name of EVENT_NAMES) {
      queueEvents.on(name, (...args) => {
        if (seen >= count) {
          return;
        }
        // drained comes as (id); the others as (fields, id)
        const line = name === 'drained' ? { event: name, id: args[0] } : { event: name, id: args[1], ...args[0] };
        out(line);
        if (++seen >= count) {
          finish(0);
        }
      });
    }
  });
}

const commands = {
  add: () => add(...rest),
  process: () => processJobs(...rest),
  fail: () => failJobs(...rest),
  getJob: () => getJob(...rest),
  counts: () => counts(),
  hang: () => hang(),
  events: () => events(...rest),
};

dispatch('interop.mjs', commands, command, USAGE);
