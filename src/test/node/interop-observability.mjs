// The real bullmq for the observability interop tests (io.bull4j.interop.InteropMetrics*Test, InteropAdminGettersTest):
// a worker with metrics whose clock the jobs set, and the getters that read metrics, workers, logs and meta.
// Contract: stdout carries only JSON, one object per line; everything else goes to stderr; every command ends by
// itself (the worker after its count, or when stdin closes; a bounded timeout exits with code 2).
// Usage: node interop-observability.mjs <command> <redisUrl> <queue> [json]  (see USAGE)
import { Queue, Worker } from 'bullmq';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  work       <url> <queue> <specJson>   a Worker, see runWorker
  metrics    <url> <queue> <argsJson>   {type, start, end}: queue.getMetrics
  prometheus <url> <queue> <labelsJson> queue.exportPrometheusMetrics(labels) as {text}
  workers    <url> <queue>              queue.getWorkers() names and count
  logs       <url> <queue> <argsJson>   {id, start, end, asc}: queue.getJobLogs
  addLog     <url> <queue> <argsJson>   {id, row, keepLogs}: queue.addJobLog
  meta       <url> <queue>              queue.getMeta() and getVersion()
  priorities <url> <queue> <argsJson>   {priorities}: queue.getCountsPerPriority
  trimEvents <url> <queue> <argsJson>   {maxLength}: queue.trimEvents`;

console.log = (...args) => console.error(...args); // a stray log must not corrupt the JSON stream
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

const [command, url, queueName, json] = process.argv.slice(2);
if (!command || !url || !queueName) {
  console.error(USAGE);
  process.exit(64);
}
const connection = { url };
const args = json ? JSON.parse(json) : {};

async function withQueue(fn) {
  const queue = new Queue(queueName, { connection, skipMetasUpdate: !args.writeMeta });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

/**
 * spec: { count: exit after this many final outcomes (absent: run until stdin closes), metrics: maxDataPoints,
 *   name: the worker's name, timeoutMs (default 30000) }.
 * A job's data sets the clock bullmq reads (Date.now) to data.at before the job finishes, so that the finish
 * times, and the minutes metrics count them in, are the test's; data.fail: true throws (a job with attempts
 * left is retried). Lines: ready, completed {id}, failed {id, final}.
 */
async function work() {
  const spec = args;
  const realNow = Date.now.bind(Date);
  let fake = null;
  Date.now = () => (fake === null ? realNow() : fake);
  let finals = 0;
  let worker;
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const timer = setTimeout(() => done(2), spec.timeoutMs ?? 30000);
  const opts = { connection, concurrency: 1, drainDelay: 1 };
  if (spec.metrics) opts.metrics = { maxDataPoints: spec.metrics };
  if (spec.name) opts.name = spec.name;
  worker = new Worker(queueName, async (job) => {
    if (job.data && typeof job.data.at === 'number') fake = job.data.at;
    if (job.data && job.data.fail) throw new Error('failed on purpose');
    return 'ok';
  }, opts);
  const final = () => { if (spec.count !== undefined && ++finals >= spec.count) done(0); };
  worker.on('completed', (job) => { out({ completed: job.id }); final(); });
  worker.on('failed', (job) => {
    const isFinal = job.attemptsMade >= (job.opts.attempts || 1);
    out({ failed: job.id, final: isFinal });
    if (isFinal) final();
  });
  worker.on('error', (err) => console.error('worker error:', err));
  await worker.waitUntilReady();
  out({ ready: true });
  if (spec.count === undefined) {
    process.stdin.on('end', () => done(0));
    process.stdin.resume();
  }
  const code = await finished;
  clearTimeout(timer);
  process.stdin.pause();
  await worker.close();
  return code;
}

const commands = {
  work,
  metrics: () => withQueue(async (q) => {
    out(await q.getMetrics(args.type, args.start ?? 0, args.end ?? -1));
    return 0;
  }),
  prometheus: () => withQueue(async (q) => {
    out({ text: await q.exportPrometheusMetrics(args.labels) });
    return 0;
  }),
  workers: () => withQueue(async (q) => {
    const workers = await q.getWorkers();
    out({ count: await q.getWorkersCount(), names: workers.map((w) => w.name), rawnames: workers.map((w) => w.rawname) });
    return 0;
  }),
  logs: () => withQueue(async (q) => {
    out(await q.getJobLogs(args.id, args.start ?? 0, args.end ?? -1, args.asc ?? true));
    return 0;
  }),
  addLog: () => withQueue(async (q) => {
    out({ count: await q.addJobLog(args.id, args.row, args.keepLogs) });
    return 0;
  }),
  meta: () => withQueue(async (q) => {
    out({ meta: await q.getMeta(), version: await q.getVersion() });
    return 0;
  }),
  priorities: () => withQueue(async (q) => {
    out(await q.getCountsPerPriority(args.priorities));
    return 0;
  }),
  trimEvents: () => withQueue(async (q) => {
    out({ result: await q.trimEvents(args.maxLength) });
    return 0;
  }),
};

dispatch('interop-observability.mjs', commands, command, USAGE);
