// Redis's own cost of one job scheduler run, bull4j against bullmq@6.7.0, with no worker loop around it, in two
// measured phases: (1) fetch: take each due run (N "every" schedulers, one run each in wait), which also adds that
// scheduler's next run (bull4j: inside moveToActive; BullMQ: Worker.getNextJob, i.e. moveToActive and then the
// worker's updateJobScheduler); (2) finish: complete each run, asking for a next job that is not there (bull4j:
// moveToFinished; BullMQ: Job.moveToCompleted with fetchNext), as in issue 10's schedulers runs, where a run is
// taken and finished alone. INFO commandstats (reset before each phase) gives evalsha µs per run. Run the two
// alternately on one Redis; ratios, not absolute times, are what compare.
//
// Usage: node scheduler-cost.mjs --port P --impl bull4j|bullmq [--jobs 5000] [--rounds 1] [--lua DIR] [--gap-ms 0]
//   [--callgrind PID] [--lone 1]
// --lone 1 (bull4j only): each run waits in a side list and is moved to wait (LMOVE, one command outside the
// scripts) just before its fetch, so that the fetch finds nothing else ready, as in a live run where runs are taken
// as they fall due: the fetch then also answers the next delayed time (fetchJob's ready == 0 path).
// --callgrind PID: Redis runs under `valgrind --tool=callgrind` as process PID; each phase is bracketed by
// `callgrind_control -z` and `-d <impl>-<phase>`, so that its dump holds that phase's instructions only (counts that
// the machine's load does not move; compare before and after a script change with the same --jobs).
// Prints one JSON line per round: {impl, jobs, fetch: {...per run}, finish: {...per run}}.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { execFileSync } from 'node:child_process';
import { assemble } from './lua-text.mjs';
import { perJob } from './script-stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const connection = { host: '127.0.0.1', port: Number(args.port ?? 6379) };
const IMPL = args.impl ?? 'bull4j';
const JOBS = Number(args.jobs ?? 5000);
const ROUNDS = Number(args.rounds ?? 1);
const LUA = path.resolve(args.lua ?? path.join(HERE, '../../../lua'));
// every hour: a next run never falls due within a round
const EVERY = 3600000;
const DATA = { payload: 'x'.repeat(100) };
const QUEUE = 'scheduler-cost';
// --gap-ms G: wait G ms before each call, so that Redis idles between calls as in a live run at 1,000 runs/s
const GAP_MS = Number(args['gap-ms'] ?? 0);
const LONE = args.lone === '1';
const gap = () => (GAP_MS > 0 ? new Promise((resolve) => setTimeout(resolve, GAP_MS)) : undefined);
const redis = new IORedis(connection);
const base = `bull:${QUEUE}:`;
const k = (s) => base + s;

const CALLGRIND = args.callgrind;
const callgrind = (...a) => CALLGRIND && execFileSync('callgrind_control', [...a, CALLGRIND], { stdio: 'ignore' });

async function phase(name, run) {
  await redis.config('RESETSTAT');
  callgrind('-z');
  await run();
  callgrind('-d', `${IMPL}-${name}`);
  return perJob(await redis.info('commandstats'), JOBS);
}

// bull4j: the schedulers as its addJobScheduler leaves them (scheduler hash, repeat zset, first run in wait)
async function bull4jRound() {
  const fetchSha = await redis.script('LOAD', assemble(LUA, 'moveToActive'));
  const finishSha = await redis.script('LOAD', assemble(LUA, 'moveToFinished'));
  const now = Date.now();
  const p = redis.pipeline();
  for (let i = 0; i < JOBS; i++) {
    const id = `repeat:s${i}:${now}`;
    p.hset(k(`repeat:s${i}`), 'name', 'job', 'every', String(EVERY), 'ic', '1');
    p.zadd(k('repeat'), String(now), `s${i}`);
    p.hset(k(id), 'name', 'job', 'data', JSON.stringify(DATA), 'opts', JSON.stringify({ repeat: { every: EVERY },
      repeatJobKey: `s${i}`, jobId: id, delay: 0, attempts: 0, timestamp: now }), 'timestamp', String(now),
    'delay', '0', 'priority', '0', 'rjk', `s${i}`);
    p.lpush(k(LONE ? 'lone' : 'wait'), id);
  }
  await p.exec();
  const fetchKeys = ['wait', 'active', 'prioritized', 'pc', 'delayed', 'marker', 'meta', 'events', 'failed'].map(k);
  const finishKeys = ['active', 'completed', 'events', 'stalled', 'meta', 'wait', 'prioritized', 'pc', 'delayed',
    'marker', 'failed'].map(k);
  const held = [];
  const fetch = await phase('fetch', async () => {
    for (let i = 0; i < JOBS; i++) {
      await gap();
      if (LONE) await redis.lmove(k('lone'), k('wait'), 'RIGHT', 'LEFT');
      const r = await redis.evalsha(fetchSha, fetchKeys.length, ...fetchKeys, base, String(Date.now()), `t${i}`,
        '30000', '', '', '', '0');
      if (typeof r[1] !== 'string') throw new Error(`fetch ${i} got no job`);
      held.push([r[1], `t${i}`]);
    }
  });
  const finish = await phase('finish', async () => {
    for (const [id, t] of held) {
      await gap();
      // moveToFinished's ARGV: base, lock ms, worker, limiter max and duration, metrics, queue; then the job's 12
      const r = await redis.evalsha(finishSha, finishKeys.length, ...finishKeys, base, '30000', '', '', '', '', QUEUE,
        id, t, String(Date.now()), 'completed', 'null', '', '-1', '-1', '1', '1', `n${id}`, '', '0');
      if (typeof r[1] === 'string' || (Array.isArray(r) && r.length === 1)) throw new Error(`finish of ${id}: ${r}`);
    }
  });
  return { fetch, finish };
}

async function bullmqRound() {
  const queue = new Queue(QUEUE, { connection });
  for (let i = 0; i < JOBS; i++) await queue.upsertJobScheduler(`s${i}`, { every: EVERY }, { name: 'job', data: DATA });
  const worker = new Worker(QUEUE, null, { connection, autorun: false });
  const token = 'scheduler-cost-token';
  const held = [];
  const fetch = await phase('fetch', async () => {
    for (let i = 0; i < JOBS; i++) {
      await gap();
      const job = await worker.getNextJob(token, { block: false });
      if (!job) throw new Error(`fetch ${i} got no job`);
      held.push(job);
    }
  });
  const finish = await phase('finish', async () => {
    for (const job of held) {
      await gap();
      const next = await job.moveToCompleted(null, token, true);
      if (next && next[0]) throw new Error('a finish fetched a job');
    }
  });
  await worker.close();
  await queue.close();
  return { fetch, finish };
}

try {
  for (let i = 0; i < ROUNDS; i++) {
    await redis.flushall('SYNC');
    const r = IMPL === 'bullmq' ? await bullmqRound() : await bull4jRound();
    const sum = +(r.fetch.evalsha_usec_per_job + r.finish.evalsha_usec_per_job).toFixed(2);
    console.log(JSON.stringify({ impl: IMPL, jobs: JOBS, evalsha_usec_per_run: sum, ...r }));
  }
} finally {
  redis.disconnect();
}
