// Job schedulers under the REAL bullmq, for io.bull4j.interop.InteropSchedulerTest.
// Contract: stdout carries only JSON, one object per line; everything else goes to stderr.
// Usage: node interop-scheduler.mjs <command> <redisUrl> <queue> [args...]
import { Queue, Worker } from 'bullmq';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  upsert     <url> <queue> <schedulerId> <repeatOptsJson> <templateJson>
  schedulers <url> <queue>                 (getJobSchedulers ascending, and the count)
  process    <url> <queue> <count>         (a worker until <count> jobs completed)`;
const TIMEOUT_MS = 30_000;

console.log = (...args) => console.error(...args);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

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

async function upsert(id, repeatJson, templateJson) {
  return withQueue(async (queue) => {
    const job = await queue.upsertJobScheduler(id, JSON.parse(repeatJson), JSON.parse(templateJson));
    out({ id: job.id, name: job.name, data: job.data, opts: job.opts });
    return 0;
  });
}

async function schedulers() {
  return withQueue(async (queue) => {
    out({ schedulers: await queue.getJobSchedulers(0, -1, true), count: await queue.getJobSchedulersCount() });
    return 0;
  });
}

async function processJobs(countStr) {
  const count = Number(countStr);
  return new Promise((resolve) => {
    let started = 0;
    let seen = 0;
    let worker;
    const finish = async (code) => {
      clearTimeout(timer);
      await worker.close(code !== 0).catch((err) => console.error('close failed:', err));
      resolve(code);
    };
    const timer = setTimeout(() => {
      console.error(`timeout: ${seen}/${count} completed after ${TIMEOUT_MS} ms`);
      finish(2);
    }, TIMEOUT_MS);
    worker = new Worker(queueName, async () => {
      if (++started >= count) {
        worker.close().catch((err) => console.error('close failed:', err)); // not awaited: it waits for us
      }
      return 'node';
    }, { connection, concurrency: 1 });
    worker.on('error', (err) => console.error('worker error:', err));
    worker.on('completed', (job) => {
      out({ id: job.id, name: job.name, data: job.data, rjk: job.repeatJobKey });
      if (++seen >= count) {
        finish(0);
      }
    });
  });
}

dispatch('interop-scheduler.mjs', {
  upsert: () => upsert(...rest),
  schedulers: () => schedulers(),
  process: () => processJobs(...rest),
}, command, USAGE);
