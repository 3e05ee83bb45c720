// BullMQ's counterpart of script-cost.mjs --batch 1: Redis's own cost of bullmq@6.7.0's finish-and-fetch, with no
// worker loop around it. Jobs are added to wait (Queue.addBulk, data of --data-bytes), then one client finishes
// them one after the other with Job.moveToCompleted(null, token, fetchNext = true), each finish taking the next job
// as BullMQ's worker does. INFO commandstats then gives evalsha µs per job, comparable with script-cost.mjs
// --batch 1 run alternately on the same Redis (BullMQ has no batched finish, so only batch 1 compares).
//
// Usage: node bullmq-script-cost.mjs --port P [--jobs 20000] [--retention keep|remove] [--data-bytes 100] [--rounds 3]
// Prints one JSON line per round, with the fields script-cost.mjs prints.
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { perJob } from './script-stats.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const connection = { host: '127.0.0.1', port: Number(args.port ?? 6379) };
const JOBS = Number(args.jobs ?? 20000);
const REMOVE = (args.retention ?? 'keep') === 'remove';
const DATA = { payload: 'x'.repeat(Number(args['data-bytes'] ?? 100)) };
const ROUNDS = Number(args.rounds ?? 3);
const QUEUE = 'script-cost';
const redis = new IORedis(connection);

async function round() {
  await redis.flushall('SYNC');
  const queue = new Queue(QUEUE, { connection });
  // attempts 1 and no retention option (keep), as script-cost.mjs's jobs; remove: removeOnComplete true
  const opts = REMOVE ? { attempts: 1, removeOnComplete: true } : { attempts: 1 };
  for (let from = 0; from < JOBS; from += 1000) {
    await queue.addBulk(Array.from({ length: Math.min(1000, JOBS - from) }, () => ({ name: 'job', data: DATA, opts })));
  }
  // no processor, no autorun: the loop below drives the worker's own fetch and finish calls
  const worker = new Worker(QUEUE, null, { connection, autorun: false });
  const token = 'script-cost-token';
  let job = await worker.getNextJob(token);
  await redis.config('RESETSTAT');
  const t0 = process.hrtime.bigint();
  let finished = 0;
  while (job) {
    const next = await job.moveToCompleted(null, token, true);
    finished++;
    job = next && next[0] ? await worker.nextJobFromJobData(next[0], next[1], token) : undefined;
  }
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const text = await redis.info('commandstats');
  await worker.close();
  await queue.close();
  if (finished !== JOBS) throw new Error(`finished ${finished} of ${JOBS} jobs`);
  return { impl: 'bullmq', jobs: finished, jobs_per_s: Math.round(finished / wallS), batch: 1,
    retention: REMOVE ? 'remove' : 'keep', ...perJob(text, finished) };
}

try {
  for (let i = 0; i < ROUNDS; i++) console.log(JSON.stringify(await round()));
} finally {
  redis.disconnect();
}
