// A real bullmq Worker for the Java chaos suite (io.bull4j.chaos): the Node twin of ChaosWorkerMain. It writes
// the same history lines (one JSON object per line: ev, mono = CLOCK_MONOTONIC ns, wall = epoch µs, fields),
// each with a synchronous write so that a kill -9 loses no written line. SIGTERM closes the worker gracefully.
// Usage: node chaos-worker.mjs <redisUrl> <queue> <concurrency> <lockMs> <stalledMs> <maxStalledCount>
//                               <historyFile> <processName>
import fs from 'node:fs';
import { Worker } from 'bullmq';

const [url, queue, concurrency, lockMs, stalledMs, maxStalled, historyFile, proc] = process.argv.slice(2);
if (!proc) {
  console.error('usage: chaos-worker.mjs url queue concurrency lockMs stalledMs maxStalledCount history proc');
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

append('BOOT', { proc, pid: process.pid, engine: 'bullmq' });

const worker = new Worker(queue, async (job, token) => {
  append('START', { job: job.id, token, ats: job.attemptsStarted, atm: job.attemptsMade });
  // the job's work: long enough that kills and pauses land while jobs run
  await new Promise((resolve) => setTimeout(resolve, job.data.ms));
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
