// A real bullmq Worker for the Java chaos suite (io.bull4j.chaos): the Node twin of ChaosWorkerMain. It writes
// the same history lines (one JSON object per line: ev, mono = CLOCK_MONOTONIC ns, wall = epoch µs, fields),
// each with a synchronous write so that a kill -9 loses no written line. SIGTERM closes the worker gracefully.
// Usage: node chaos-worker.mjs <redisUrl> <queue> <concurrency> <lockMs> <stalledMs> <maxStalledCount>
//                               <historyFile> <processName> [sleep|spin]
// "spin" makes the processor busy-spin (CPU-bound work, which blocks the event loop) for the job's duration instead
// of sleeping.
import fs from 'node:fs';
import { Worker } from 'bullmq';

const [url, queue, concurrency, lockMs, stalledMs, maxStalled, historyFile, proc, work = 'sleep'] =
  process.argv.slice(2);
if (!proc || !['sleep', 'spin'].includes(work)) {
  console.error('usage: chaos-worker.mjs url queue concurrency lockMs stalledMs maxStalledCount history proc [sleep|spin]');
  process.exit(64);
}

const fd = fs.openSync(historyFile, 'a');
function append(ev, fields = {}) {
  const mono = process.hrtime.bigint();
  const wall = BigInt(Date.now()) * 1000n;
  // mono does not fit a double exactly: written as a JSON integer by hand
  const rest = JSON.stringify({ ...fields }).slice(1);
  const line = `{"ev":${JSON.stringify(ev)},"mono":${mono},"wall":${wall}${rest === '}' ? '}' : ',' + rest}\n`;
  fs.writeSync(fd, line);
}

append('BOOT', { proc, pid: process.pid, engine: 'bullmq', work });

// A ticker on the event loop (the thread that also runs bullmq's lock renewal timer): a gap of more than a second
// between two ticks means the process ran none of its timers meanwhile; written as BLOCKED with its length, so
// that the checker can tell a lock lost to a blocked process from one lost under a valid lease.
const TICK_MS = 100;
let lastTick = process.hrtime.bigint();
setInterval(() => {
  const now = process.hrtime.bigint();
  const gapMs = Number(now - lastTick) / 1e6;
  if (gapMs > 1000) {
    append('BLOCKED', { ms: gapMs });
  }
  lastTick = now;
}, TICK_MS);

const worker = new Worker(queue, async (job, token) => {
  append('START', { job: job.id, token, ats: job.attemptsStarted, atm: job.attemptsMade });
  // the job's work: long enough that kills and pauses land while jobs run
  if (work === 'spin') {
    // CPU-bound work: the event loop runs nothing else until it ends
    const until = process.hrtime.bigint() + BigInt(job.data.ms) * 1000000n;
    while (process.hrtime.bigint() < until) {
      // spin
    }
  } else {
    await new Promise((resolve) => setTimeout(resolve, job.data.ms));
  }
  append('END', { job: job.id, token });
  return { ok: true };
}, {
  connection: { url },
  concurrency: Number(concurrency),
  lockDuration: Number(lockMs),
  stalledInterval: Number(stalledMs),
  maxStalledCount: Number(maxStalled),
});

worker.on('completed', (job) => append('DONE', { job: job.id, token: job.token ?? null }));
worker.on('failed', (job, err) => append('FAILED', { job: job?.id ?? null, reason: String(err?.message) }));
worker.on('stalled', (jobId) => append('STALLED', { job: jobId }));
worker.on('lockRenewalFailed', (ids) => ids.forEach((id) => append('LOCK_LOST', { job: id, reason: 'RENEWAL' })));
worker.on('error', (err) => {
  // a finish refused by the token check names its job: "Missing lock for job 12. moveToFinished"
  const m = /(?:lock|Lock).*job (\S+?)[.\s]/.exec(String(err?.message));
  if (m) {
    append('LOCK_LOST', { job: m[1], reason: 'FINISH', msg: String(err.message) });
  } else {
    append('ERROR', { msg: String(err?.message ?? err) });
  }
});
worker.on('ready', () => append('READY'));

let closing = false;
process.on('SIGTERM', async () => {
  if (closing) {
    return;
  }
  closing = true;
  append('CLOSING');
  await worker.close().catch((err) => append('ERROR', { msg: 'close: ' + String(err?.message) }));
  append('CLOSED');
  fs.closeSync(fd);
  process.exit(0);
});
