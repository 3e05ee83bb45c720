#!/usr/bin/env node
// BullMQ 6.7.0's side of the interleaved benchmark (src/bench/interleave.sh): one variant, one measured run, per
// process, so that the orchestrator can alternate it with bull4j's harness run by run.
//
// Usage: node driver.mjs --port P --variant process/c10-keep|process/c1-remove|add/sequential|add/inflight100
//                        [--n 50000] [--warmup-n 2000] [--out file.jsonl]
// Prints one 'bullmq-bench/1' JSON line (the envelope and metric names that bull4j's harness writes too, see
// docs/benchmarks.md) on stdout, also appended to --out. Progress goes to stderr.
//
// The conventions are the harness's: FLUSHALL SYNC before the warm-up and before the measured run, a fresh Queue
// and Worker per pass, payload {i}, job name "bench", prefill through addBulk chunks of 1000, an empty async
// processor, processing throughput from the first to the last completion. CPU: this process from
// process.cpuUsage() (all threads), Redis from INFO cpu, the rest of the machine from /proc/stat.
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = {};
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i];
  if (!key.startsWith('--') || i + 1 >= process.argv.length) throw new Error(`bad argument near ${key}`);
  args[key.slice(2)] = process.argv[i + 1];
}
const PORT = Number(args.port ?? 6390);
const VARIANT = args.variant ?? 'process/c10-keep';
const N = Number(args.n ?? 50000);
const WARMUP_N = Number(args['warmup-n'] ?? 2000);
const CHUNK = 1000;
const QUEUE = 'bench-interleave';
const connection = { host: '127.0.0.1', port: PORT, maxRetriesPerRequest: null };
const log = (msg) => process.stderr.write(`[bullmq-driver] ${msg}\n`);

const admin = new IORedis(connection);

function infoField(text, name) {
  const m = text.match(new RegExp(`^${name}:(.*)$`, 'm'));
  return m ? m[1].trim() : undefined;
}
async function redisCpuS() {
  const text = await admin.info('cpu');
  return Number(infoField(text, 'used_cpu_user')) + Number(infoField(text, 'used_cpu_sys'));
}
// busy ticks of the whole machine (every cpu, everything but idle and iowait)
function machineBusyS() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + (f[4] ?? 0);
  const total = f.reduce((a, b) => a + b, 0);
  return (total - idle) / 100;
}
function selfCpuS() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}
function begin() {
  return Promise.all([redisCpuS()]).then(([redis]) => ({ t: performance.now(), self: selfCpuS(), redis,
    machine: machineBusyS() }));
}
async function end(m, jobs, tEnd) {
  const self = selfCpuS() - m.self;
  const redis = (await redisCpuS()) - m.redis;
  const machine = machineBusyS() - m.machine;
  const wall = (tEnd - m.t) / 1000;
  return {
    wall_s: wall, node_cpu_s: self, redis_cpu_s: redis,
    node_cpu_us_per_job: (self * 1e6) / jobs, redis_cpu_us_per_job: (redis * 1e6) / jobs,
    node_util: self / wall, redis_util: redis / wall,
    other_util: Math.max(0, machine - self - redis) / wall,
  };
}

async function prefill(queue, n, opts) {
  for (let i = 0; i < n; i += CHUNK) {
    const jobs = [];
    for (let j = i; j < Math.min(n, i + CHUNK); j++) jobs.push({ name: 'bench', data: { i: j }, opts });
    await queue.addBulk(jobs);
  }
}

async function processRun(n, conc, retention) {
  await admin.flushall('SYNC');
  const queue = new Queue(QUEUE, { connection });
  await prefill(queue, n, retention === 'remove' ? { removeOnComplete: true } : {});
  let done = 0;
  let tFirst = 0;
  let tLast = 0;
  let finished;
  const allDone = new Promise((resolve) => { finished = resolve; });
  const worker = new Worker(QUEUE, async () => {}, { connection, concurrency: conc, autorun: false });
  worker.on('completed', () => {
    const t = performance.now();
    if (done === 0) tFirst = t;
    tLast = t;
    if (++done === n) finished();
  });
  worker.on('failed', (job, err) => log(`job failed: ${err?.message}`));
  const m = await begin();
  worker.run();
  await allDone;
  const cost = await end(m, n, tLast);
  await worker.close();
  const counts = await queue.getJobCounts('completed', 'wait', 'active', 'failed');
  await queue.close();
  const expectCompleted = retention === 'remove' ? 0 : n;
  if (counts.completed !== expectCompleted || counts.wait || counts.active || counts.failed) {
    throw new Error(`process: unexpected counts ${JSON.stringify(counts)}`);
  }
  return { jobs: n, jobs_per_s: (n - 1) / ((tLast - tFirst) / 1000), jobs_per_s_from_start: n / cost.wall_s,
    ...cost };
}

async function addRun(n, inflight) {
  await admin.flushall('SYNC');
  const queue = new Queue(QUEUE, { connection });
  await queue.waitUntilReady();
  const m = await begin();
  if (inflight <= 1) {
    for (let i = 0; i < n; i++) await queue.add('bench', { i });
  } else {
    let next = 0;
    const lane = async () => {
      while (next < n) await queue.add('bench', { i: next++ });
    };
    await Promise.all(Array.from({ length: inflight }, lane));
  }
  const cost = await end(m, n, performance.now());
  const waiting = await queue.getWaitingCount();
  await queue.close();
  if (waiting !== n) throw new Error(`add: expected ${n} waiting, got ${waiting}`);
  return { jobs: n, jobs_per_s: n / cost.wall_s, ...cost };
}

function runnerFor(variant) {
  const [mode, name] = variant.split('/');
  let m;
  if (mode === 'process' && (m = name?.match(/^c(\d+)-(keep|remove)$/))) {
    return { mode, name, params: { n: N, concurrency: Number(m[1]), retention: m[2] },
      run: (n) => processRun(n, Number(m[1]), m[2]) };
  }
  if (mode === 'add' && (name === 'sequential' || (m = name?.match(/^inflight(\d+)$/)))) {
    const inflight = name === 'sequential' ? 1 : Number(m[1]);
    return { mode, name, params: { n: N, inflight }, run: (n) => addRun(n, inflight) };
  }
  throw new Error(`unknown --variant ${variant} (process/c<N>-keep|remove, add/sequential, add/inflight<N>)`);
}

const runner = runnerFor(VARIANT);
try {
  if (WARMUP_N > 0) await runner.run(WARMUP_N);
  const run = await runner.run(N);
  const summary = Object.fromEntries(Object.entries(run).map(([k, v]) => [k, { median: v, min: v, max: v,
    spread_pct: 0 }]));
  const serverInfo = await admin.info('server');
  const line = JSON.stringify({
    schema: 'bullmq-bench/1', impl: 'node-bullmq', impl_version: require('bullmq/package.json').version,
    runtime: `node ${process.version}`, client: `ioredis ${require('ioredis/package.json').version}`,
    redis_version: infoField(serverInfo, 'redis_version'), host: { cpus: os.cpus().length },
    date: new Date().toISOString(), mode: runner.mode, variant: runner.name, params: runner.params, runs: 1,
    summary, per_run: [run],
  });
  process.stdout.write(line + '\n');
  if (args.out) fs.appendFileSync(args.out, line + '\n');
  log(`${VARIANT}: ${Math.round(run.jobs_per_s)} jobs/s, node ${run.node_cpu_us_per_job.toFixed(1)} µs/job, `
    + `redis ${run.redis_cpu_us_per_job.toFixed(1)} µs/job`);
} finally {
  await admin.quit();
}
