#!/usr/bin/env node
// BullMQ 6.7.0's side of the interleaved benchmark (src/bench/interleave.sh): one variant, one measured run, per
// process, so that the orchestrator can alternate it with bull4j's harness run by run.
//
// Usage: node driver.mjs --port P --variant process/c10-keep|process/c1-remove|add/sequential|add/inflight100
//                        [--n 50000] [--warmup-n 2000] [--out file.jsonl]
//        node driver.mjs --port P --variant schedulers/n10000-c100[-remove] [--every-ms 1000] [--warmup-s 5] [--duration-s 60]
//        node driver.mjs --port P --variant limiter/max1000-c50 [--windows 10]
//        node driver.mjs --port P --variant flows/add-1x10[-inflight<K>]|flows/process-1x10-c10 [--flows 1000]
//        node driver.mjs --port P --variant latency/c1-sequential [--n 2000] [--latency-warmup 50]
//        node driver.mjs --port P --variant delayed/bulk10000 [--delayed-conc 10]
//        any of these with --serve [--serve-warmup-n 20000]: one process answering "run" lines (see below)
// latency/c1-sequential and delayed/bulk<N> are issue 15's, run as bull4j's LatencyRuns.latency and
// DelayedRuns.bulk (see latencyRun and delayedBulkRun below); for delayed/bulk<N> the name gives n, not --n.
// The flows variants are issue 11's, run as bull4j's FlowRuns (src/bench/java); --n does not apply to them (--flows
// is the number of flows, --warmup-n the warm-up's jobs, 11 per flow of 1x10).
// The schedulers and limiter variants are issue 10's, run as bull4j's harness runs them (SchedulerRuns and
// LimiterRuns in src/bench/java): see docs/benchmarks.md.
// Prints one 'bullmq-bench/1' JSON line (the envelope and metric names that bull4j's harness writes too, see
// docs/benchmarks.md) on stdout, also appended to --out. Progress goes to stderr.
//
// The conventions are the harness's: FLUSHALL SYNC before the warm-up and before the measured run, a fresh Queue
// and Worker per pass, payload {i}, job name "bench", prefill through addBulk chunks of 1000, an empty async
// processor, processing throughput from the first to the last completion. CPU: this process from
// process.cpuUsage() (all threads), Redis from INFO cpu, the rest of the machine from /proc/stat.
import { Queue, Worker, FlowProducer, QueueEvents } from 'bullmq';
import IORedis from 'ioredis';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const key = process.argv[i];
  if (!key.startsWith('--')) throw new Error(`bad argument near ${key}`);
  // a flag without a value (--serve) is "true"
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) args[key.slice(2)] = 'true';
  else { args[key.slice(2)] = next; i++; }
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

// How far ahead of the creation the first scheduler runs start (SchedulerRuns.LEAD_MS).
const LEAD_MS = 5000;

// Job schedulers at scale, as bull4j's SchedulerRuns: n schedulers every `everyMs`, each with a start date of its
// own so that the runs fall evenly over each interval, one Worker at `conc` with an empty processor. After warmupS
// seconds from the first run, a window of durationS seconds is measured: each iteration whose processor starts in
// it, with its lateness (Date.now() at entry minus the due time in its id repeat:<id>:<millis>), and the CPU of
// this process and of Redis over the window. remove: the template sets removeOnComplete (the keyspace stays flat
// instead of growing by one job hash per run).
async function schedulersRun(n, conc, everyMs, warmupS, durationS, remove) {
  await admin.flushall('SYNC');
  const queue = new Queue(QUEUE, { connection });
  await queue.waitUntilReady();
  const capacity = Math.ceil(n * 1000 / everyMs * durationS * 1.2) + 1000;
  const late = new Float64Array(capacity);
  let count = 0;
  let from = Infinity;
  let until = Infinity;
  const worker = new Worker(QUEUE, async (job) => {
    const now = Date.now();
    if (now >= from && now < until) {
      const due = Number(job.id.slice(job.id.lastIndexOf(':') + 1));
      if (count < capacity) late[count] = now - due;
      count++;
    }
  }, { connection, concurrency: conc });
  worker.on('error', (err) => log(`worker error: ${err?.message}`));
  await worker.waitUntilReady();
  // creation as fast as it goes (up to 50 upserts in flight), scheduler i with the start date T + i * every / n, T a
  // lead ahead: its runs take their own even place in the interval however long the upserts take (SchedulerRuns's
  // create); an upsert that ends after its start date may have started its first run late, and is counted
  const began = performance.now();
  const firstDue = Date.now() + LEAD_MS;
  let next = 0;
  let lateUpserts = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      const due = firstDue + Math.floor((i * everyMs) / n);
      await queue.upsertJobScheduler(`s${i}`, { every: everyMs, startDate: due },
        remove ? { name: 'bench', data: {}, opts: { removeOnComplete: true } } : { name: 'bench', data: {} });
      if (Date.now() >= due) lateUpserts++;
    }
  };
  await Promise.all(Array.from({ length: 50 }, lane));
  const createS = (performance.now() - began) / 1000;
  log(`created ${n} schedulers every ${everyMs} ms in ${createS.toFixed(2)} s (first runs due ${LEAD_MS} ms after `
    + `the start; ${lateUpserts} upserts ended after their start date)`);
  // the warm-up counts from the first run
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstDue + warmupS * 1000 - Date.now())));
  await admin.config('RESETSTAT');
  const m = await begin();
  const begun = Date.now();
  until = begun + durationS * 1000;
  from = begun;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));
  const iterations = Math.min(count, capacity);
  const cost = await end(m, Math.max(1, iterations), performance.now());
  const statsText = await admin.info('commandstats');
  lastCmdstats = topCmds(statsText, Math.max(1, iterations));
  let calls = 0;
  let scripts = 0;
  for (const line of statsText.split('\n')) {
    const cm = line.match(/^cmdstat_([^:]+):calls=(\d+)/);
    if (cm && !['info', 'echo', 'flushall'].includes(cm[1]) && !cm[1].startsWith('config')) {
      calls += Number(cm[2]);
      if (cm[1].startsWith('eval')) scripts += Number(cm[2]);
    }
  }
  cost.cmd_calls_per_job = calls / Math.max(1, iterations);
  cost.script_calls_per_job = scripts / Math.max(1, iterations);
  const waiting = await queue.getWaitingCount();
  await worker.close();
  await queue.close();
  const s = Array.from(late.subarray(0, iterations)).sort((a, b) => a - b);
  const offered = (n * 1000) / everyMs;
  return { schedulers: n, every_ms: everyMs, concurrency: conc, create_s: createS, late_upserts: lateUpserts,
    jobs: iterations,
    offered_per_s: offered, jobs_per_s: iterations / cost.wall_s, sustained_fraction: iterations / cost.wall_s / offered,
    ...dist(s, 'late'), late_over_10ms_pct: (100 * s.filter((v) => v > 10).length) / Math.max(1, iterations),
    ...cost, waiting_at_end: waiting };
}

// Sequential latency, as bull4j's LatencyRuns.latency (the reference harness's mode d): a Worker at concurrency 1
// and a QueueEvents reader on queue bench-lat; one job at a time (name "lat", data {i, t0}), the next added only
// once the previous one's completed event has arrived. Per job: the awaited add call, add to processor entry
// (performance.now() in the processor minus t0), add to the completed event. The first `warmup` jobs are not
// counted; the CPU window covers the n counted ones.
async function latencyRun(n, warmup) {
  await admin.flushall('SYNC');
  const name = 'bench-lat';
  const total = n + warmup;
  const addLat = new Float64Array(total);
  const startLat = new Float64Array(total);
  const complLat = new Float64Array(total);
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  const worker = new Worker(name, async (job) => {
    startLat[job.data.i] = performance.now() - job.data.t0;
    return job.data.i;
  }, { connection, concurrency: 1 });
  worker.on('error', (err) => log(`worker error: ${err?.message}`));
  let waiting = null; // [index, resolve] of the job whose completed event is awaited
  events.on('completed', ({ returnvalue }) => {
    if (waiting && Number(returnvalue) === waiting[0]) waiting[1](performance.now());
  });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady(), worker.waitUntilReady()]);
  await new Promise((resolve) => setTimeout(resolve, 200)); // let the worker reach its blocking fetch
  let m;
  for (let i = 0; i < total; i++) {
    if (i === warmup) {
      await admin.config('RESETSTAT');
      m = await begin();
    }
    const completed = new Promise((resolve) => { waiting = [i, resolve]; });
    const t0 = performance.now();
    await queue.add('lat', { i, t0 });
    addLat[i] = performance.now() - t0;
    complLat[i] = (await completed) - t0;
  }
  const cost = await end(m, n, performance.now());
  const counts = await commandCounts(n);
  await worker.close();
  await events.close();
  await queue.close();
  const counted = (a) => Array.from(a.subarray(warmup)).sort((x, y) => x - y);
  return { jobs: n, jobs_per_s: n / cost.wall_s, ...dist(counted(addLat), 'add_call'),
    ...dist(counted(startLat), 'start'), ...dist(counted(complLat), 'completed_event'), ...cost, ...counts };
}

// Issue 15's delayed/bulk<N>, as bull4j's DelayedRuns.bulk: the lateness of delayed jobs while a big bulk add is
// still running. A Worker (concurrency 10, queue bench-delayed-bulk) runs first; then n jobs go in through
// addBulk chunks of 1000 with removeOnComplete, job i delayed 50 + (i mod 1000) * 2 ms, so that each chunk comes
// due over the 2 s after it was added: jobs keep coming due from 50 ms after the add starts for as long as it runs.
// Lateness = Date.now() at processor entry minus timestamp + delay; the jobs due before the add returned are also
// counted apart (late_during_add_*). The CPU window runs from the add's start to the last completion.
const DELAY_MIN_MS = 50;
const CHUNK_SPREAD_MS = 2000;
const delayOf = (i) => DELAY_MIN_MS + Math.round(((i % CHUNK) * CHUNK_SPREAD_MS) / CHUNK);
async function delayedBulkRun(n, conc) {
  await admin.flushall('SYNC');
  const name = 'bench-delayed-bulk';
  const late = new Float64Array(n);
  const due = new Float64Array(n);
  const queue = new Queue(name, { connection });
  let done = 0;
  let tFirst = 0;
  let tLast = 0;
  let failedWith;
  let finished;
  const allDone = new Promise((resolve) => { finished = resolve; });
  const worker = new Worker(name, async (job) => {
    const now = Date.now();
    const d = job.timestamp + (job.opts.delay ?? 0);
    due[job.data.i] = d;
    late[job.data.i] = now - d;
  }, { connection, concurrency: conc });
  worker.on('completed', () => {
    const t = performance.now();
    if (done === 0) tFirst = t;
    tLast = t;
    if (++done === n) finished();
  });
  worker.on('failed', (job, err) => { failedWith = err; finished(); });
  worker.on('error', (err) => log(`worker error: ${err?.message}`));
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  // a stalled run fails instead of hanging the interleaved command (bull4j's side: Completions.timeoutFor)
  const guard = setTimeout(() => { failedWith = new Error(`only ${done} of ${n} jobs completed`); finished(); },
    (60 + n * 0.002 + CHUNK_SPREAD_MS / 1000) * 1000);
  await admin.config('RESETSTAT');
  const m = await begin();
  const ta = performance.now();
  for (let s = 0; s < n; s += CHUNK) {
    const jobs = [];
    for (let i = s; i < Math.min(n, s + CHUNK); i++) {
      jobs.push({ name: 'bench', data: { i }, opts: { delay: delayOf(i), removeOnComplete: true } });
    }
    await queue.addBulk(jobs);
  }
  const addEndMs = Date.now();
  const addS = (performance.now() - ta) / 1000;
  await allDone;
  clearTimeout(guard);
  if (failedWith) throw new Error(`delayed bulk: ${failedWith.message}`);
  const cost = await end(m, n, performance.now());
  const counts = await commandCounts(n);
  await worker.close();
  await queue.close();
  const all = Array.from(late).sort((a, b) => a - b);
  const during = Array.from(late).filter((x, i) => due[i] < addEndMs).sort((a, b) => a - b);
  return { jobs: n, add_s: addS, add_jobs_per_s: n / addS, ...dist(all, 'late'),
    early_jobs: all.filter((x) => x < 0).length, due_during_add_jobs: during.length, ...dist(during, 'late_during_add'),
    jobs_per_s: n / cost.wall_s, jobs_per_s_processing: (n - 1) / ((tLast - tFirst) / 1000), ...cost, ...counts };
}

// INFO commandstats per iteration, top 15 by usec (the harness's own commands left out), as bull4j's Modes.top
let lastCmdstats;
function topCmds(text, jobs) {
  const rows = [];
  for (const line of text.split('\n')) {
    const cm = line.match(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/);
    if (cm && !['info', 'echo', 'flushall'].includes(cm[1]) && !cm[1].startsWith('config')) {
      rows.push([cm[1], Number(cm[2]), Number(cm[3])]);
    }
  }
  rows.sort((a, b) => b[2] - a[2]);
  return Object.fromEntries(rows.slice(0, 15).map(([k, c, u]) => [k, { calls_per_job: +(c / jobs).toFixed(3),
    usec_per_job: +(u / jobs).toFixed(3) }]));
}

// nearest-rank percentiles of a sorted sample, as bull4j's Stats.dist
function dist(sorted, prefix) {
  const pct = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
    : NaN);
  return { [`${prefix}_p50_ms`]: pct(50), [`${prefix}_p90_ms`]: pct(90), [`${prefix}_p99_ms`]: pct(99),
    [`${prefix}_max_ms`]: sorted.length ? sorted[sorted.length - 1] : NaN, [`${prefix}_min_ms`]: sorted[0] ?? NaN,
    [`${prefix}_mean_ms`]: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length) };
}

// The limiter's windows rebuilt greedily from sorted fetch times (processedOn): [start, count] each.
function perWindow(starts, windowMs) {
  starts.sort((a, b) => a - b);
  const windows = [];
  let endAt = 0;
  for (const t of starts) {
    if (!windows.length || t >= endAt) {
      windows.push([t, 0]);
      endAt = t + windowMs;
    }
    windows[windows.length - 1][1]++;
  }
  return windows;
}

// The rate limiter, as bull4j's LimiterRuns: max * (windows + 2) prefilled jobs, one Worker with
// limiter {max, duration: 1000} at `conc`; the first window is left out, the next `windows` measured. Then a
// manual limit of 10 s holds the worker with jobs waiting, and 5 s of that are measured.
async function limiterRun(max, conc, windows) {
  await admin.flushall('SYNC');
  // every job's active event must stay in the stream: its id is the time Redis ran the fetch (see below)
  const queue = new Queue(QUEUE, { connection, streams: { events: { maxLen: 200000 } } });
  const n = max * (windows + 2);
  await prefill(queue, n, {});
  let done = 0;
  let finished;
  const allDone = new Promise((resolve) => { finished = resolve; });
  const worker = new Worker(QUEUE, async () => {}, { connection, concurrency: conc,
    limiter: { max, duration: 1000 } });
  worker.on('completed', () => { if (++done === n) finished(); });
  worker.on('error', (err) => log(`worker error: ${err?.message}`));
  const m = await begin();
  await allDone;
  const cost = await end(m, n, performance.now());
  const fetched = [];
  for (let id = 1; id <= n; id++) fetched.push(Number(await admin.hget(`bull:${QUEUE}:${id}`, 'processedOn')));
  // the windows on Redis's clock (the active events' ids: when Redis ran each fetch, the clock the limiter key
  // expires by), and on the client's (processedOn, stamped when the call was built) as client_*
  const active = (await admin.xrange(`bull:${QUEUE}:events`, '-', '+'))
    .filter(([, f]) => f[f.indexOf('event') + 1] === 'active').map(([id]) => Number(id.split('-')[0]));
  const win = (times, prefix) => {
    const per = perWindow(times, 1000);
    const last = Math.min(per.length - 1, windows + 1);
    const measured = per.slice(1, last).map((w) => w[1]);
    const span = per[last][0] - per[1][0];
    return { [`${prefix}windows`]: measured.length,
      [`${prefix}jobs_per_s`]: (measured.reduce((a, b) => a + b, 0) * 1000) / span,
      [`${prefix}window_mean`]: measured.reduce((a, b) => a + b, 0) / measured.length,
      [`${prefix}window_min`]: Math.min(...measured), [`${prefix}window_max`]: Math.max(...measured),
      [`${prefix}windows_over_max`]: measured.filter((c) => c > max).length,
      [`${prefix}max_deviation_pct`]: (100 * Math.max(...measured.map((c) => Math.abs(c - max)))) / max };
  };
  const onRedis = win(active, '');
  if (onRedis.windows < windows) throw new Error(`the events stream lost active events: ${JSON.stringify(onRedis)}`);
  const r = { jobs: n, ...onRedis, ...win(fetched, 'client_'),
    node_cpu_us_per_job: cost.node_cpu_us_per_job, redis_cpu_us_per_job: cost.redis_cpu_us_per_job,
    run_client_cpu_ms_per_s: (cost.node_cpu_s * 1000) / cost.wall_s,
    run_redis_cpu_ms_per_s: (cost.redis_cpu_s * 1000) / cost.wall_s, other_util: cost.other_util };
  // held by a manual limit of 10 s, with jobs waiting
  await queue.rateLimit(10000);
  for (let i = 0; i < 10; i++) await queue.add('bench', { i });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await admin.config('RESETSTAT');
  const mi = await begin();
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const idle = await end(mi, 1, performance.now());
  const stats = await admin.info('commandstats');
  let calls = 0;
  for (const line of stats.split('\n')) {
    const cm = line.match(/^cmdstat_([^:]+):calls=(\d+)/);
    if (cm && !['info', 'echo', 'flushall'].includes(cm[1]) && !cm[1].startsWith('config')) calls += Number(cm[2]);
  }
  r.limited_client_cpu_ms_per_s = (idle.node_cpu_s * 1000) / idle.wall_s;
  r.limited_redis_cmds_per_s = calls / idle.wall_s;
  r.limited_redis_cpu_ms_per_s = (idle.redis_cpu_s * 1000) / idle.wall_s;
  await worker.close();
  await queue.close();
  return r;
}

// Flows, as bull4j's FlowRuns: one parent (queue bench-flow-parents, name bench-parent, data {i}) and `width`
// children (queue bench-flow-children, name bench, data {i, c}), no job ids. Figures per job count width + 1 jobs
// per flow. INFO commandstats is reset at the start of the window, and read at its end.
const PARENTS = 'bench-flow-parents';
const CHILDREN = 'bench-flow-children';
function flowOf(i, width) {
  const children = [];
  for (let c = 0; c < width; c++) children.push({ name: 'bench', queueName: CHILDREN, data: { i, c } });
  return { name: 'bench-parent', queueName: PARENTS, data: { i }, children };
}
async function commandCounts(jobs) {
  const statsText = await admin.info('commandstats');
  lastCmdstats = topCmds(statsText, jobs);
  let calls = 0;
  let scripts = 0;
  for (const line of statsText.split('\n')) {
    const cm = line.match(/^cmdstat_([^:]+):calls=(\d+)/);
    if (cm && !['info', 'echo', 'flushall'].includes(cm[1]) && !cm[1].startsWith('config')) {
      calls += Number(cm[2]);
      if (cm[1].startsWith('eval')) scripts += Number(cm[2]);
    }
  }
  return { cmd_calls_per_job: calls / jobs, script_calls_per_job: scripts / jobs };
}

// Adds `flows` flows, one FlowProducer.add call each: awaited one by one (inflight 1), or `inflight` lanes each
// adding the next flow as soon as its last one is stored.
async function flowsAddRun(flows, width, inflight) {
  await admin.flushall('SYNC');
  const producer = new FlowProducer({ connection });
  await producer.waitUntilReady();
  const jobs = flows * (width + 1);
  await admin.config('RESETSTAT');
  const m = await begin();
  let next = 0;
  const lane = async () => {
    while (next < flows) await producer.add(flowOf(next++, width));
  };
  await Promise.all(Array.from({ length: Math.max(1, inflight) }, lane));
  const cost = await end(m, jobs, performance.now());
  const counts = await commandCounts(jobs);
  await producer.close();
  const parents = new Queue(PARENTS, { connection });
  const children = new Queue(CHILDREN, { connection });
  const wc = await parents.getWaitingChildrenCount();
  const waiting = await children.getWaitingCount();
  await parents.close();
  await children.close();
  if (wc !== flows || waiting !== flows * width) {
    throw new Error(`flows add: expected ${flows} parents waiting for children and ${flows * width} children `
      + `waiting, got ${wc} and ${waiting}`);
  }
  return { flows, jobs, jobs_per_s: jobs / cost.wall_s, flows_per_s: flows / cost.wall_s, ...cost, ...counts };
}

// Prefills `flows` flows (FlowProducer.addBulk of 100 flows a call), then one Worker per queue at `conc`: the
// children's returns null, the parent's reads its children's values and returns null. jobs_per_s is from the first
// to the last parent completion; the CPU window runs from the workers' start to the last parent completion.
async function flowsProcessRun(flows, width, conc) {
  await admin.flushall('SYNC');
  const producer = new FlowProducer({ connection });
  const tp0 = performance.now();
  for (let s = 0; s < flows; s += 100) {
    const chunk = [];
    for (let i = s; i < Math.min(flows, s + 100); i++) chunk.push(flowOf(i, width));
    await producer.addBulk(chunk);
  }
  const prefillS = (performance.now() - tp0) / 1000;
  await producer.close();
  const jobs = flows * (width + 1);
  let parentsDone = 0;
  let tFirst = 0;
  let tLast = 0;
  let badValues = 0;
  let finished;
  let failedWith;
  const allDone = new Promise((resolve) => { finished = resolve; });
  const children = new Worker(CHILDREN, async () => null, { connection, concurrency: conc, autorun: false });
  const parents = new Worker(PARENTS, async (job) => {
    if (Object.keys(await job.getChildrenValues()).length !== width) badValues++;
    return null;
  }, { connection, concurrency: conc, autorun: false });
  parents.on('completed', () => {
    const t = performance.now();
    if (parentsDone === 0) tFirst = t;
    tLast = t;
    if (++parentsDone === flows) finished();
  });
  for (const w of [children, parents]) {
    w.on('failed', (job, err) => { failedWith = err; finished(); });
    w.on('error', (err) => log(`worker error: ${err?.message}`));
  }
  await admin.config('RESETSTAT');
  const m = await begin();
  children.run();
  parents.run();
  await allDone;
  if (failedWith) throw new Error(`a flow job failed: ${failedWith.message}`);
  const cost = await end(m, jobs, tLast);
  const counts = await commandCounts(jobs);
  await children.close();
  await parents.close();
  if (badValues) throw new Error(`${badValues} parents did not read ${width} children values`);
  for (const [name, expected] of [[PARENTS, flows], [CHILDREN, flows * width]]) {
    const q = new Queue(name, { connection });
    const c = await q.getJobCounts('completed', 'wait', 'active', 'failed');
    await q.close();
    if (c.completed !== expected || c.wait || c.active || c.failed) {
      throw new Error(`flows process: unexpected counts in ${name} ${JSON.stringify(c)}`);
    }
  }
  return { flows, jobs, jobs_per_s: ((flows - 1) * (width + 1)) / ((tLast - tFirst) / 1000),
    jobs_per_s_from_start: jobs / cost.wall_s, first_parent_completion_ms: tFirst - m.t,
    prefill_jobs_per_s: jobs / prefillS, ...cost, ...counts };
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
  if (mode === 'latency' && name === 'c1-sequential') {
    const warmup = Number(args['latency-warmup'] ?? 50);
    return { mode, name, params: { n: N, warmup, concurrency: 1, retention: 'keep' },
      warmupRun: () => latencyRun(Math.min(WARMUP_N, 500), warmup), run: (n) => latencyRun(n, warmup) };
  }
  if (mode === 'delayed' && (m = name?.match(/^bulk(\d+)$/))) {
    const n = Number(m[1]);
    const conc = Number(args['delayed-conc'] ?? 10);
    return { mode, name, params: { n, chunk: CHUNK, delay_ms: '50 + (i mod chunk) * 2000 / chunk', concurrency: conc,
      retention: 'remove' }, warmupRun: () => delayedBulkRun(WARMUP_N, conc), run: () => delayedBulkRun(n, conc) };
  }
  if (mode === 'schedulers' && (m = name?.match(/^n(\d+)-c(\d+)(-remove)?$/))) {
    const everyMs = Number(args['every-ms'] ?? 1000);
    const warmupS = Number(args['warmup-s'] ?? 5);
    const durationS = Number(args['duration-s'] ?? 60);
    return { mode, name, warmup: false, params: { schedulers: Number(m[1]), every_ms: everyMs, concurrency: Number(m[2]),
      warmup_s: warmupS, duration_s: durationS, retention: m[3] ? 'remove' : 'keep', processor: 'async () => {}' },
    run: () => schedulersRun(Number(m[1]), Number(m[2]), everyMs, warmupS, durationS, Boolean(m[3])) };
  }
  if (mode === 'limiter' && (m = name?.match(/^max(\d+)-c(\d+)$/))) {
    const windows = Number(args.windows ?? 10);
    return { mode, name, warmup: false, params: { max: Number(m[1]), duration_ms: 1000, windows, concurrency: Number(m[2]),
      retention: 'keep', processor: 'async () => {}' }, run: () => limiterRun(Number(m[1]), Number(m[2]), windows) };
  }
  if (mode === 'flows') {
    const flows = Number(args.flows ?? 1000);
    if ((m = name?.match(/^add-1x(\d+)(?:-inflight(\d+))?$/))) {
      const width = Number(m[1]);
      const inflight = Number(m[2] ?? 1);
      return { mode, name, params: { flows, children_per_flow: width, inflight, jobs_per_flow: width + 1 },
        warmupRun: () => flowsAddRun(Math.max(10, Math.ceil(WARMUP_N / (width + 1))), width, inflight),
        run: () => flowsAddRun(flows, width, inflight) };
    }
    if ((m = name?.match(/^process-1x(\d+)-c(\d+)$/))) {
      const width = Number(m[1]);
      const conc = Number(m[2]);
      return { mode, name, params: { flows, children_per_flow: width, concurrency: conc, jobs_per_flow: width + 1,
        retention: 'keep', processor: 'children: async () => null; parent: await job.getChildrenValues(), null' },
      warmupRun: () => flowsProcessRun(Math.max(10, Math.ceil(WARMUP_N / (width + 1))), width, conc),
      run: () => flowsProcessRun(flows, width, conc) };
    }
  }
  throw new Error(`unknown --variant ${variant} (process/c<N>-keep|remove, add/sequential, add/inflight<N>, `
    + 'latency/c1-sequential, delayed/bulk<N>, schedulers/n<N>-c<C>[-remove], limiter/max<M>-c<C>, '
    + 'flows/add-1x<W>[-inflight<K>], flows/process-1x<W>-c<C>)');
}

// --serve (interleave.mjs --close): one long-lived process per variant, as bull4j's side is then. It first runs
// --serve-warmup-n jobs of the variant (default 20,000, the Java side's JIT warm-up per path; the flows variants
// that many jobs' worth of flows; the other modes their usual warm-up pass), prints {"serve":"ready"}, then answers
// every "run" line on stdin with one warm-up pass, one measured run and its line, then {"serve":"done"}.
const SERVE = args.serve === 'true';
const SERVE_WARMUP_N = Number(args['serve-warmup-n'] ?? 20000);

async function serveWarmup() {
  const [mode] = VARIANT.split('/');
  if (mode === 'process') return runner.run(SERVE_WARMUP_N);
  if (mode === 'flows') {
    const m = runner.name.match(/^(?:add|process)-1x(\d+)/);
    const width = Number(m[1]);
    const count = Math.max(10, Math.floor(SERVE_WARMUP_N / (width + 1)));
    return runner.name.startsWith('add') ? flowsAddRun(count, width, runner.params.inflight)
      : flowsProcessRun(count, width, runner.params.concurrency);
  }
  if (runner.warmup !== false) return (runner.warmupRun ?? runner.run)(WARMUP_N);
  return undefined;
}

async function measureOnce() {
  if (WARMUP_N > 0 && runner.warmup !== false) await (runner.warmupRun ?? runner.run)(WARMUP_N);
  const run = await runner.run(N);
  const summary = Object.fromEntries(Object.entries(run).map(([k, v]) => [k, { median: v, min: v, max: v,
    spread_pct: 0 }]));
  const serverInfo = await admin.info('server');
  const line = JSON.stringify({
    schema: 'bullmq-bench/1', impl: 'node-bullmq', impl_version: require('bullmq/package.json').version,
    runtime: `node ${process.version}`, client: `ioredis ${require('ioredis/package.json').version}`,
    redis_version: infoField(serverInfo, 'redis_version'), host: { cpus: os.cpus().length },
    date: new Date().toISOString(), mode: runner.mode, variant: runner.name, params: runner.params, runs: 1,
    summary, per_run: [run], ...(lastCmdstats ? { cmdstats_last_run: lastCmdstats } : {}),
  });
  process.stdout.write(line + '\n');
  if (args.out) fs.appendFileSync(args.out, line + '\n');
  log(`${VARIANT}: ${Math.round(run.jobs_per_s)} jobs/s, node ${run.node_cpu_us_per_job.toFixed(1)} µs/job, `
    + `redis ${run.redis_cpu_us_per_job.toFixed(1)} µs/job`);
}

const runner = runnerFor(VARIANT);
try {
  if (SERVE) {
    await serveWarmup();
    process.stdout.write('{"serve":"ready"}\n');
    const readline = await import('node:readline');
    for await (const cmd of readline.createInterface({ input: process.stdin })) {
      if (cmd.trim() === 'quit') break;
      if (cmd.trim() !== 'run') throw new Error(`--serve: unknown command ${cmd}`);
      await measureOnce();
      process.stdout.write('{"serve":"done"}\n');
    }
  } else {
    await measureOnce();
  }
} finally {
  await admin.quit();
}
