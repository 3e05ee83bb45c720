// Redis's own cost of bull4j's hot scripts, without any worker around them: jobs are prepared in wait, then one
// client, sequentially, finishes them in batches through lua/moveManyToFinished.lua, each finish taking the next job
// (what a worker at concurrency `batch` sends when its finishes go together). Nothing else runs, so INFO
// commandstats gives the scripts' CPU per job with no thread, wake-up or network noise of a client: the measure to
// compare Lua changes by (run it on each tree, alternating). It does not compare with BullMQ (see interleave.sh).
//
// Usage: node script-cost.mjs --port P [--jobs 20000] [--batch 10] [--retention keep|remove] [--data-bytes 100]
//                             [--lua DIR (default: this tree's lua/)] [--rounds 3]
//                             [--via eval|function] (function: each script as a Redis 7 library, called by FCALL)
//                             [--empty 1] (every job fetched first: each finish's fetch comes back empty)
//                             [--scheduler 1] (every job a job scheduler's run: each fetch adds the next run)
//                             [--flows W] (every job the child of a flow of 1 parent + W children, the parents
//                             waiting in a queue of their own: each finish updates its parent, the last releases it)
// Prints one JSON line per round: the finishing loop's jobs/s, evalsha µs per job, script calls and commands per
// job, the commands' own µs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import IORedis from 'ioredis';
import { assemble, library } from './lua-text.mjs';
import { perJob } from './script-stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const PORT = Number(args.port ?? 6379);
const JOBS = Number(args.jobs ?? 20000);
const BATCH = Number(args.batch ?? 10);
const KEEP = (args.retention ?? 'keep') === 'remove' ? '0' : '-1';
const DATA = JSON.stringify({ payload: 'x'.repeat(Number(args['data-bytes'] ?? 100)) });
const LUA = path.resolve(args.lua ?? path.join(HERE, '../../../lua'));
const ROUNDS = Number(args.rounds ?? 3);
const VIA = args.via ?? 'eval'; // or 'function': FCALL of a Redis 7 library (lua-text.mjs's library)
// --empty 1: every job is fetched before the first finish, so each finish's fetch finds nothing (with 1000 delayed
// jobs due later, as between a job scheduler's runs): the cost of a finish whose next fetch comes back empty
const EMPTY = args.empty === '1';
// --scheduler 1: every job is the due run of an "every" job scheduler of its own, so each fetch also adds that
// scheduler's next run (schedulerJob.lua's nextEveryRunOnFetch), as in issue 10's schedulers runs. Every hour, not
// every second as there: a next run must not fall due within the round, or the round would never end
const EVERY = '3600000';
const SCHEDULER = args.scheduler === '1';
// --flows W: the jobs are the children of flows of W children each (parent i/W in queue script-cost-p, waiting for
// them in waiting-children), as issue 11's flows/process-1x10-c10 run's children are
const FLOW_WIDTH = Number(args.flows ?? 0);
const parentQueue = 'bull:script-cost-p';

const redis = new IORedis({ port: PORT, host: '127.0.0.1' });
const base = 'bull:script-cost:';
const k = (s) => base + s;
const fetchKeys = ['wait', 'active', 'prioritized', 'pc', 'delayed', 'marker', 'meta', 'events', 'failed'].map(k);
const finishKeys = ['active', 'completed', 'events', 'stalled', 'meta', 'wait', 'prioritized', 'pc', 'delayed',
  'marker', 'failed'].map(k);
let fetchSha, finishSha, fetchFn, finishFn;
if (VIA === 'function') {
  const [a, la] = library(LUA, 'moveToActive');
  const [b, lb] = library(LUA, 'moveManyToFinished');
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', la);
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', lb);
  fetchFn = a; finishFn = b;
} else {
  fetchSha = await redis.script('LOAD', assemble(LUA, 'moveToActive'));
  finishSha = await redis.script('LOAD', assemble(LUA, 'moveManyToFinished'));
}
const call = (fetch, ...a) => VIA === 'function'
  ? redis.call('FCALL', fetch ? fetchFn : finishFn, ...a) : redis.evalsha(fetch ? fetchSha : finishSha, ...a);
const LOCK_MS = '30000';
let tokenSeq = 0;
const token = () => `t${++tokenSeq}`;

async function prepare() {
  await redis.flushall('SYNC');
  const now = Date.now();
  for (let from = 1; from <= JOBS; from += 1000) {
    const p = redis.pipeline();
    for (let i = from; i < Math.min(from + 1000, JOBS + 1); i++) {
      if (SCHEDULER) {
        const id = `repeat:s${i}:${now}`;
        p.hset(k(`repeat:s${i}`), 'name', 'job', 'every', EVERY, 'ic', '1');
        p.zadd(k('repeat'), String(now), `s${i}`);
        p.hset(k(id), 'name', 'job', 'data', DATA, 'opts', JSON.stringify({ repeat: { every: Number(EVERY), count: 1 },
          repeatJobKey: `s${i}`, jobId: id, delay: 0, attempts: 0, timestamp: now }), 'timestamp', String(now),
        'delay', '0', 'priority', '0', 'rjk', `s${i}`);
        p.lpush(k('wait'), id);
      } else if (FLOW_WIDTH > 0) {
        const parentId = `p${Math.floor((i - 1) / FLOW_WIDTH)}`;
        const parentKey = `${parentQueue}:${parentId}`;
        if ((i - 1) % FLOW_WIDTH === 0) {
          p.hset(parentKey, 'name', 'parent', 'data', DATA, 'opts', '{"attempts":1}', 'timestamp', String(now),
            'delay', '0', 'priority', '0');
          p.zadd(`${parentQueue}:waiting-children`, String(now), parentId);
        }
        p.sadd(`${parentKey}:dependencies`, k(String(i)));
        p.hset(k(String(i)), 'name', 'job', 'data', DATA, 'opts', '{"attempts":1}', 'timestamp', String(now),
          'delay', '0', 'priority', '0', 'parentKey', parentKey,
          'parent', JSON.stringify({ id: parentId, queueKey: parentQueue }));
        p.lpush(k('wait'), String(i));
      } else {
        p.hset(k(String(i)), 'name', 'job', 'data', DATA, 'opts', '{"attempts":1}', 'timestamp', String(now),
          'delay', '0', 'priority', '0');
        p.lpush(k('wait'), String(i));
      }
    }
    await p.exec();
  }
}

async function round() {
  await prepare();
  let held = [];
  if (EMPTY) {
    const p = redis.pipeline();
    for (let i = 0; i < 1000; i++) p.zadd(k('delayed'), String((Date.now() + 3600000) * 4096 + i), `d${i}`);
    await p.exec();
  }
  for (let i = 0; i < (EMPTY ? JOBS : BATCH); i++) {
    const t = token();
    const r = await call(true, fetchKeys.length, ...fetchKeys, base, String(Date.now()), t, LOCK_MS, '',
      '', '', '0');
    if (typeof r[1] === 'string') held.push([r[1], t]);
  }
  const rest = EMPTY ? held.splice(BATCH) : [];
  await redis.config('RESETSTAT');
  let finished = 0;
  const t0 = process.hrtime.bigint();
  while (held.length > 0) {
    const argv = [base, LOCK_MS, '', '', '', '', 'script-cost'];
    const next = held.map(() => token());
    const now = String(Date.now());
    held.forEach(([id, t], i) => argv.push(id, t, now, 'completed', 'null', '', KEEP, '-1', '1', '1', next[i], ''));
    argv.push('0'); // the deadline ScriptRunner appends: none
    const replies = await call(false, finishKeys.length, ...finishKeys, ...argv);
    finished += held.length;
    held = replies.map((r, i) => [r[1], next[i]]).filter(([id]) => typeof id === 'string');
    if (EMPTY) held = rest.splice(0, BATCH);
  }
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  return {
    jobs: finished, jobs_per_s: Math.round(finished / wallS), batch: BATCH,
    retention: KEEP === '0' ? 'remove' : 'keep', lua: LUA,
    ...(FLOW_WIDTH > 0 ? { flows: FLOW_WIDTH, parentsReleased: await redis.llen(`${parentQueue}:wait`) } : {}),
    ...perJob(await redis.info('commandstats'), finished),
  };
}

try {
  for (let i = 0; i < ROUNDS; i++) console.log(JSON.stringify(await round()));
} finally {
  redis.disconnect();
}
