// Drives the REAL bullmq for the data interop suite (io.bull4j.interop.InteropData*Test).
// Contract: stdout carries only JSON, one object per line; everything else goes to stderr; every command
// closes what it opened and the process exits on its own (exit 2 when a wait times out).
// Usage: node interop-data.mjs <command> <redisUrl> <queue> [args...]; a JSON arg written "@<path>" is read
// from that file (payloads over the 128 KB limit of one command-line argument).
import { readFileSync } from 'node:fs';
import { Queue, Worker, Job, QueueEvents } from 'bullmq';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  add       <url> <queue> <jobsJson>          queue.add for each {name, data, opts}, in order
  addBulk   <url> <queue> <jobsJson>          one queue.addBulk of [{name, data, opts}]
  work      <url> <queue> <specJson>          a worker until spec.count jobs finished (see runWorker)
  getJobs   <url> <queue> <idsJson>           each job as bullmq reads it, with its state and logs
  waitEvent <url> <queue> <event> <jobId>     QueueEvents from the stream's start until <event> for <jobId>`;
const DEFAULT_TIMEOUT_MS = 30_000;

// why: a stray console.log (ours or a library's) must not corrupt the JSON stream
console.log = (...args) => console.error(...args);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const arg = (text) => JSON.parse(text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text);

const [command, url, queueName, ...rest] = process.argv.slice(2);
if (!command || !url || !queueName) {
  console.error(USAGE);
  process.exit(64);
}
const connection = { url };

async function withQueue(fn) {
  const queue = new Queue(queueName, { connection });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

// What the test needs of an added job; the data is left out (it may be a megabyte).
const added = (job) => ({ id: job.id, name: job.name, opts: job.opts, timestamp: job.timestamp,
  delay: job.delay, priority: job.priority });

// A job bullmq refuses (e.g. a bad custom id) gives {name, error} and the next one is tried.
async function add(jobsJson) {
  return withQueue(async (queue) => {
    for (const { name, data, opts } of arg(jobsJson)) {
      try {
        out(added(await queue.add(name, data, opts)));
      } catch (err) {
        out({ name, error: err.message });
      }
    }
    return 0;
  });
}

async function addBulk(jobsJson) {
  return withQueue(async (queue) => {
    const jobs = await queue.addBulk(arg(jobsJson));
    jobs.forEach((job) => out(added(job)));
    return 0;
  });
}

// The processor both sides share: with spec.echo it returns the data; with spec.parseDates [field...] it returns
// {field: Date.parse(data[field])} (epoch ms, null when JavaScript cannot parse it); otherwise it does what the
// data says: {progress: [...], logs: [...], fail: "message", returns: value} (each optional; no `returns` gives null).
async function scripted(job, spec) {
  if (spec.echo) {
    return job.data;
  }
  if (spec.parseDates) {
    return Object.fromEntries(spec.parseDates.map((f) => {
      const ms = Date.parse(job.data[f]);
      return [f, Number.isNaN(ms) ? null : ms];
    }));
  }
  const data = job.data ?? {};
  for (const p of data.progress ?? []) {
    await job.updateProgress(p);
  }
  for (const line of data.logs ?? []) {
    await job.log(line);
  }
  if (typeof data.fail === 'string') {
    throw new Error(data.fail);
  }
  return data.returns === undefined ? null : data.returns;
}

// A job as a line: what bullmq's Job object holds (job may be undefined for some failures).
const finished = (event, seq, job, extra) => ({
  event, seq, id: job?.id, name: job?.name, data: job?.data, opts: job?.opts, timestamp: job?.timestamp,
  delay: job?.delay, priority: job?.priority, processedOn: job?.processedOn, finishedOn: job?.finishedOn,
  attemptsMade: job?.attemptsMade, ...extra,
});

// spec: {count, concurrency=1, echo, parseDates, workerOpts, timeoutMs}. Prints {event:'ready'} once the worker runs,
// then one line per finished job ({event:'completed'|'failed', seq: start order, ...}). It starts closing
// when the count-th job starts, so it takes no extra job (the last ones still finish and are printed).
async function work(specJson) {
  const spec = arg(specJson);
  const count = spec.count;
  const timeoutMs = spec.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let started = 0;
    let seen = 0;
    const seqOf = new Map();
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
      console.error(`timeout: ${seen}/${count} jobs finished after ${timeoutMs} ms`);
      finish(2);
    }, timeoutMs);
    worker = new Worker(queueName, async (job) => {
      seqOf.set(job.id, ++started);
      if (started >= count) {
        worker.close().catch((err) => console.error('close failed:', err)); // not awaited: it waits for us
      }
      return scripted(job, spec);
    }, { concurrency: 1, ...spec.workerOpts, connection });
    worker.on('error', (err) => console.error('worker error:', err));
    const done = (line) => {
      out(line);
      if (++seen >= count) {
        finish(0);
      }
    };
    worker.on('completed', (job, result) => done(finished('completed', seqOf.get(job.id), job,
      { returnvalue: result ?? null })));
    worker.on('failed', (job, err) => done(finished('failed', seqOf.get(job?.id), job,
      { failedReason: job?.failedReason ?? err?.message })));
    worker.waitUntilReady().then(() => out({ event: 'ready' }), (err) => console.error('not ready:', err));
  });
}

async function getJobs(idsJson) {
  return withQueue(async (queue) => {
    for (const id of arg(idsJson)) {
      const job = await Job.fromId(queue, id);
      if (!job) {
        out({ id, missing: true });
        continue;
      }
      out({
        id: job.id, name: job.name, data: job.data, opts: job.opts, progress: job.progress,
        returnvalue: job.returnvalue ?? null, failedReason: job.failedReason ?? null,
        attemptsMade: job.attemptsMade, attemptsStarted: job.attemptsStarted, timestamp: job.timestamp,
        processedOn: job.processedOn ?? null, finishedOn: job.finishedOn ?? null, delay: job.delay,
        priority: job.priority, state: await job.getState(), logs: await queue.getJobLogs(id),
      });
    }
    return 0;
  });
}

// Prints the first <event> for <jobId> as bullmq's QueueEvents hands it over: {event, eventId, ...fields}.
async function waitEvent(eventName, jobId) {
  const queueEvents = new QueueEvents(queueName, { connection, lastEventId: '0', blockingTimeout: 1000 });
  queueEvents.on('error', (err) => console.error('queue events error:', err));
  return new Promise((resolve) => {
    const finish = async (code) => {
      clearTimeout(timer);
      await queueEvents.close();
      resolve(code);
    };
    const timer = setTimeout(() => {
      console.error(`timeout: no ${eventName} event for ${jobId} after ${DEFAULT_TIMEOUT_MS} ms`);
      finish(2);
    }, DEFAULT_TIMEOUT_MS);
    let done = false;
    queueEvents.on(eventName, (fields, eventId) => {
      if (!done && fields?.jobId === jobId) {
        done = true;
        out({ event: eventName, eventId, ...fields });
        finish(0);
      }
    });
  });
}

const commands = {
  add: () => add(...rest),
  addBulk: () => addBulk(...rest),
  work: () => work(...rest),
  getJobs: () => getJobs(...rest),
  waitEvent: () => waitEvent(...rest),
};

dispatch('interop-data.mjs', commands, command, USAGE);
