// Executes the steps of differential scenarios (src/test/resources/differential/*.json) with the REAL bullmq, for
// io.bull4j.interop.DifferentialTest. The Java test decides which side runs each step; this process runs the
// steps it is handed, one at a time, so that one Node process serves every run of the test class.
// Protocol: one JSON command per stdin line, {url, queue, file, step}: run step number <step> of the scenario in
// <file> on queue <queue> of the Redis at <url>; {url, queue, read: [jobIds]}: read the queue through bullmq's
// API; {finish: true}: wait for a background worker still running and close it; {abandon: true}: close it at once
// (after a failed run). Answers one stdout line per
// command: {done: step}, {read: {counts, states}}, {finished: true} or {step, error}. A manual step (a worker
// without a processor, driven by hand) records each op's answer in the string 'answers:<step>:<op>'. Everything else goes to
// stderr. The process ends when stdin closes.
// Usage: node differential.mjs
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Queue, Worker, Job, UnrecoverableError, FlowProducer, DelayedError, WaitingChildrenError } from 'bullmq';
import IORedis from 'ioredis';

const STEP_TIMEOUT_MS = 30_000;

console.log = (...args) => console.error(...args); // a stray log must not corrupt the JSON answers
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

async function withQueue(cmd, fn) {
  const queue = new Queue(cmd.queue, { connection: { url: cmd.url } });
  try {
    return await fn(queue);
  } finally {
    await queue.close();
  }
}

// The number of final outcomes (completed and failed events) in the queue's events stream so far.
async function finalsSoFar(redis, queueName) {
  const entries = await redis.xrange(`bull:${queueName}:events`, '-', '+');
  return entries.filter(([, fields]) => {
    const name = fields[fields.indexOf('event') + 1];
    return name === 'completed' || name === 'failed';
  }).length;
}

// What a job does, by its name (the '*' entry for other names): see DifferentialScenario's Javadoc.
async function behave(behaviours, job, queue) {
  const own = (name) => (Object.hasOwn(behaviours, name) ? behaviours[name] : undefined);
  const b = own(job.name) ?? own('*') ?? { echo: true };
  if (b.holdMs) {
    // why a timer: the attempt itself is slow (so delayed jobs fall due meanwhile); nothing waits for an outcome
    await new Promise((resolve) => setTimeout(resolve, b.holdMs));
  }
  for (const p of b.progress ?? []) {
    await job.updateProgress(p);
  }
  for (const line of b.logs ?? []) {
    await job.log(line);
  }
  // spawnChild: the job adds a child of its own, then waits for it; updateDataTo: the processor replaces the data;
  // moveToDelayedMs: the job moves itself to delayed (first start only)
  if (b.spawnChild !== undefined) {
    const counts = await job.getDependenciesCount();
    if (!counts.processed) {
      const c = b.spawnChild;
      await queue.add(c.name, c.data, { ...(c.opts ?? {}), jobId: c.jobId, parent: { id: job.id, queue: job.queueQualifiedName } });
      if (await job.moveToWaitingChildren(job.token)) {
        throw new WaitingChildrenError();
      }
    }
    return job.getChildrenValues();
  }
  if (b.updateDataTo !== undefined) {
    await job.updateData(b.updateDataTo);
  }
  if (b.moveToDelayedMs !== undefined && job.attemptsStarted <= 1) {
    await job.moveToDelayed(Date.now() + b.moveToDelayedMs, job.token);
    throw new DelayedError();
  }
  if (b.pauseQueue) {
    await queue.pause();
  }
  if (b.rateLimitMs !== undefined && (b.rateLimitWhileStartedBelow === undefined
    || job.attemptsStarted < b.rateLimitWhileStartedBelow)) {
    // the processor finds the downstream limited: the queue waits rateLimitMs, the job goes back to wait
    await currentWorker.rateLimit(b.rateLimitMs);
    throw Worker.RateLimitError();
  }
  if (b.fail !== undefined && (b.failTimes === undefined || job.attemptsMade < b.failTimes)) {
    throw b.unrecoverable ? new UnrecoverableError(b.fail) : new Error(b.fail);
  }
  return b.echo ? job.data : (b.returns === undefined ? null : b.returns);
}

// A worker of concurrency 1 (or the step's `concurrency`) until the stream holds `finals` more final outcomes than at its start, then closed.
// With `background`, the step ends once the worker runs, and a later awaitWork step waits for it and closes it.
let background = null;
let currentWorker = null; // the worker of the running work step (for worker.rateLimit in a processor)

async function startWorker(cmd, scenario, spec) {
  const redis = new IORedis(cmd.url);
  const queue = new Queue(cmd.queue, { connection: { url: cmd.url } });
  const start = await finalsSoFar(redis, cmd.queue);
  const worker = new Worker(cmd.queue, (job) => behave(scenario.worker ?? {}, job, queue),
    { ...spec.workerOpts, concurrency: spec.concurrency ?? 1, connection: { url: cmd.url } });
  currentWorker = worker;
  worker.on('error', (err) => console.error('worker error:', err));
  await worker.waitUntilReady();
  return { cmd, redis, queue, worker, start, finals: spec.finals };
}

async function finishWorker(w) {
  try {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while ((await finalsSoFar(w.redis, w.cmd.queue)) - w.start < w.finals) {
      if (Date.now() > deadline) {
        throw new Error(`timeout: fewer than ${w.finals} final outcomes after ${STEP_TIMEOUT_MS} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await w.worker.close();
    await w.queue.close();
    await w.redis.quit();
  }
}

async function work(cmd, scenario, spec) {
  const w = await startWorker(cmd, scenario, spec);
  if (spec.background) {
    background = w;
    return undefined;
  }
  return finishWorker(w);
}

async function awaitWork() {
  if (!background) {
    throw new Error('awaitWork without a background work step');
  }
  const w = background;
  background = null;
  return finishWorker(w);
}

// A manual step: a Worker without a processor, driven by hand with one fixed token (BullMQ's "manually fetching
// jobs"). Each op's answer goes to the Redis string 'answers:<step>:<op>' (compared by the snapshot, each op on its
// own path so that a documented difference names exactly one op); a refusal is recorded as {code, error}.
const MANUAL_WAIT_MS = 10_000;

function manualSummary(job) {
  return job ? { id: job.id, attemptsMade: job.attemptsMade, attemptsStarted: job.attemptsStarted, data: job.data }
    : null;
}

// the next job a finish returned ([jobData, jobId, ...] or [] / undefined), as the Job a manual loop goes on with
function manualNext(worker, result, token) {
  if (!Array.isArray(result) || !result[0]) return null;
  const job = Job.fromJSON(worker, result[0], result[1]);
  job.token = token;
  return job;
}

async function manual(cmd, spec) {
  const token = spec.token ?? 'tok-1';
  const worker = new Worker(cmd.queue, null, { ...spec.workerOpts, connection: { url: cmd.url } });
  worker.on('error', (err) => console.error('manual worker error:', err));
  await worker.waitUntilReady();
  let current = null;
  try {
    for (let n = 0; n < spec.ops.length; n++) {
      const op = spec.ops[n];
      const tok = op.token ?? token;
      const target = async () => {
        if (op.id === undefined) {
          if (!current) throw new Error(`op ${n} (${op.op}): no current job`);
          return current;
        }
        const j = await Job.fromId(worker, op.id);
        if (!j) throw new Error(`op ${n} (${op.op}): no job ${op.id}`);
        return j;
      };
      const value = (job) => (op.echo ? job.data : (op.value === undefined ? null : op.value));
      const error = () => (op.unrecoverable ? new UnrecoverableError(op.error) : new Error(op.error));
      let answer;
      try {
        switch (op.op) {
          case 'getNextJob': {
            // wait: call again (blocking) until a job comes, e.g. a retry whose backoff runs out
            const deadline = Date.now() + MANUAL_WAIT_MS;
            let job = await worker.getNextJob(tok, { block: op.block ?? false });
            while (!job && op.wait && Date.now() < deadline) {
              job = await worker.getNextJob(tok, { block: true });
            }
            if (!job && op.wait) throw new Error(`op ${n}: no job within ${MANUAL_WAIT_MS} ms`);
            current = job ?? null;
            answer = manualSummary(current);
            break;
          }
          case 'moveToCompleted': {
            const job = await target();
            const next = manualNext(worker, await job.moveToCompleted(value(job), tok, op.fetchNext ?? false), tok);
            if (op.id === undefined) current = next;
            answer = { next: manualSummary(next) };
            break;
          }
          case 'moveToFailed': {
            const job = await target();
            const next = manualNext(worker, await job.moveToFailed(error(), tok, op.fetchNext ?? false), tok);
            if (op.id === undefined) current = next;
            answer = { next: manualSummary(next) };
            break;
          }
          case 'completeAll': { // the manual loop: complete, fetching the next in the same call, until none comes
            const ids = [];
            while (current) {
              ids.push(current.id);
              current = manualNext(worker, await current.moveToCompleted(value(current), tok, true), tok);
            }
            answer = ids;
            break;
          }
          case 'extendLock':
            answer = await (await target()).extendLock(tok, op.ms);
            break;
          case 'moveToDelayed':
            await (await target()).moveToDelayed(Date.now() + op.delayMs, tok);
            answer = 'delayed';
            break;
          case 'moveToWait':
            answer = (await (await target()).moveToWait(tok)) > 0 ? 'limited' : 'none';
            break;
          default:
            throw new Error(`unknown manual op ${op.op}`);
        }
      } catch (e) {
        if (e?.code === undefined || typeof e.code !== 'number') throw e; // the driver's own failure
        answer = { code: e.code, error: e.message };
      }
      await recordAt(`answers:${cmd.step}:${String(n).padStart(2, '0')}`, answer);
    }
  } finally {
    await worker.close();
  }
}

// One operation on one job: {id, op: promote | retry (state) | remove | changePriority (priority) | changeDelay
// (delay) | updateData (data)}.
async function jobOp(job, spec) {
  if (!job) {
    throw new Error(`no job ${spec.id}`);
  }
  switch (spec.op) {
    // answers recorded by a step with "record": true
    case 'updateProgress': return job.updateProgress(spec.progress);
    case 'log': return job.log(spec.line);
    case 'clearLogs': return job.clearLogs(spec.keepLogs);
    case 'removeDeduplicationKey': return job.removeDeduplicationKey();
    case 'getState': return job.getState();
    case 'removeUnprocessedChildren': return job.removeUnprocessedChildren();
    case 'removeChildDependency': return job.removeChildDependency();
    case 'childrenValues': return job.getChildrenValues();
    case 'failedChildrenValues': return job.getFailedChildrenValues();
    case 'dependenciesCount': return job.getDependenciesCount();
    case 'ignoredFailures': return job.getIgnoredChildrenFailures();
    case 'dependencies': {
      const d = await job.getDependencies();
      return { processed: d.processed, unprocessed: [...(d.unprocessed ?? [])].sort(), ignored: d.ignored,
        failed: [...(d.failed ?? [])].sort() };
    }
    case 'removeKeepChildren': return job.remove({ removeChildren: false }).then(() => true, () => false);
    case 'read': {
      const j = await Job.fromId(job.queue, job.id);
      if (!j) return 'missing';
      return { name: j.name, data: j.data, progress: j.progress, delay: j.delay, priority: j.priority,
        attemptsMade: j.attemptsMade, attemptsStarted: j.attemptsStarted, stalledCounter: j.stalledCounter,
        returnvalue: j.returnvalue, failedReason: j.failedReason, deduplicationId: j.deduplicationId ?? null,
        parentKey: j.parentKey ?? null, finished: j.finishedOn != null, processed: j.processedOn != null };
    }
    case 'promote': return job.promote();
    case 'retry': return job.retry(spec.state ?? 'failed',
      { resetAttemptsMade: spec.resetAttemptsMade, resetAttemptsStarted: spec.resetAttemptsStarted });
    case 'updateData': return job.updateData(spec.data);
    case 'remove': return spec.record ? job.remove().then(() => true, () => false) : job.remove();
    case 'changePriority': return job.changePriority({ priority: spec.priority, lifo: spec.lifo });
    case 'changeDelay': return job.changeDelay(spec.delay);
    default: throw new Error(`unknown job op ${spec.op}`);
  }
}

// Answers of recorded steps go to the Redis list 'answers', so that the snapshot compares them too.
const jobCache = new Map();
function canon(v) {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(canon);
  if (typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = canon(v[k]);
    return o;
  }
  return v;
}
const answerClients = new Map();
let currentUrl = null;
function answerClient() {
  const url = currentUrl;
  if (!answerClients.has(url)) answerClients.set(url, new IORedis(url));
  return answerClients.get(url);
}
async function record(q, step, value) {
  await answerClient().rpush('answers', `${step}: ${JSON.stringify(canon(value))}`);
}
async function recordAt(key, value) {
  await answerClient().set(key, JSON.stringify(canon(value)));
}
async function query(q, spec) {
  switch (spec.what) {
    case 'counts': return q.getJobCounts(...(spec.types ?? []));
    case 'jobs': return (await q.getJobs(spec.types, spec.start ?? 0, spec.end ?? -1, spec.asc ?? false))
      .map((j) => j.id);
    case 'countsPerPriority': return q.getCountsPerPriority(spec.priorities);
    case 'logs': return q.getJobLogs(spec.id, spec.start ?? 0, spec.end ?? -1, spec.asc ?? true);
    case 'dedupJobId': return q.getDeduplicationJobId(spec.id);
    case 'removeDedupKey': return q.removeDeduplicationKey(spec.id);
    case 'obliterate': return q.obliterate({ force: spec.force ?? false });
    case 'trimEvents': return q.trimEvents(spec.maxLength);
    case 'clean': return q.clean(spec.graceMs, spec.limit, spec.type);
    case 'retryJobs': return q.retryJobs({ state: spec.state, count: spec.count, timestamp: spec.timestamp });
    case 'promoteJobs': return q.promoteJobs({ count: spec.count });
    case 'remove': return q.remove(spec.id, { removeChildren: spec.removeChildren ?? true });
    case 'state': return q.getJobState(spec.id);
    case 'count': return q.count();
    case 'add': {
      if (!spec.defaultJobOptions) return (await q.add(spec.name, spec.data, spec.opts)).id;
      const dq = new Queue(q.name, { connection: { url: currentUrl }, defaultJobOptions: spec.defaultJobOptions });
      try { return (await dq.add(spec.name, spec.data, spec.opts)).id; } finally { await dq.close(); }
    }
    case 'addBulk': return (await q.addBulk(spec.jobs)).map((j) => j.id);
    case 'isPaused': return q.isPaused();
    default: throw new Error(`unknown query ${spec.what}`);
  }
}

// A flow step's tree, each node in its `queue` or else the scenario's queue.
function inQueue(node, queueName) {
  const { queue, ...rest } = node;
  return { ...rest, queueName: queue ?? queueName, children: node.children?.map((c) => inQueue(c, queueName)) };
}

async function addFlow(cmd, tree) {
  const producer = new FlowProducer({ connection: { url: cmd.url } });
  try {
    return await producer.add(inQueue(tree, cmd.queue));
  } finally {
    await producer.close();
  }
}

async function runStep(cmd) {
  if (cmd.step === 0) jobCache.clear();
  currentUrl = cmd.url;
  const scenario = JSON.parse(readFileSync(cmd.file, 'utf8'));
  const step = scenario.steps[cmd.step];
  const [kind] = Object.keys(step);
  switch (kind) {
    case 'add':
      return withQueue(cmd, (q) => q.add(step.add.name, step.add.data, step.add.opts));
    case 'addBulk':
      return withQueue(cmd, (q) => q.addBulk(step.addBulk));
    case 'flow':
      return addFlow(cmd, step.flow);
    case 'pause':
      return withQueue(cmd, (q) => q.pause());
    case 'resume':
      return withQueue(cmd, (q) => q.resume());
    case 'job':
      if (step.job.record) {
        return withQueue(cmd, async (q) => {
          // a cached Job object (from an earlier step of this run) when "cached": an op on a job removed since
          let job = step.job.cached ? jobCache.get(step.job.id) : undefined;
          if (step.job.id.startsWith('@')) { // the oldest job of a state, e.g. "@delayed"
            const [first] = await q.getJobs([step.job.id.slice(1)], 0, 0, true);
            step.job.id = first ? first.id : 'none';
          }
          if (!job) job = await Job.fromId(q, step.job.id);
          if (job && step.job.keep) jobCache.set(step.job.id, job);
          if (!job) return record(q, cmd.step, 'no job');
          if (step.job.sequence) { // several ops on one Job object, after removing the job when removeFirst
            if (step.job.removeFirst) await q.remove(step.job.id);
            const results = [];
            for (const op of step.job.sequence) {
              results.push(await jobOp(job, { ...op, id: step.job.id, record: true }).then((v) => v, () => ({ error: true })));
            }
            return record(q, cmd.step, results);
          }
          if (step.job.cached && job.queue !== q) job.queue = q;
          return record(q, cmd.step, await jobOp(job, step.job).then((v) => v, (e) => ({ error: true })));
        });
      }
      return withQueue(cmd, async (q) => jobOp(await Job.fromId(q, step.job.id), step.job));
    case 'query':
      return withQueue(cmd, async (q) => record(q, cmd.step,
        await query(q, step.query).then((v) => v, (e) => ({ error: true }))));
    case 'clean':
      return withQueue(cmd, (q) => q.clean(step.clean.graceMs, step.clean.limit, step.clean.type));
    case 'drain':
      return withQueue(cmd, (q) => q.drain(step.drain.delayed));
    case 'retryJobs':
      return withQueue(cmd, (q) => q.retryJobs({ state: step.retryJobs.state }));
    case 'promoteJobs':
      return withQueue(cmd, (q) => q.promoteJobs());
    case 'upsertJobScheduler':
      return withQueue(cmd, (q) => q.upsertJobScheduler(step.upsertJobScheduler.id, step.upsertJobScheduler.repeat,
        step.upsertJobScheduler.template));
    case 'removeJobScheduler':
      return withQueue(cmd, (q) => q.removeJobScheduler(step.removeJobScheduler.id));
    case 'setGlobalRateLimit':
      return withQueue(cmd, (q) => q.setGlobalRateLimit(step.setGlobalRateLimit.max, step.setGlobalRateLimit.duration));
    case 'removeGlobalRateLimit':
      return withQueue(cmd, (q) => q.removeGlobalRateLimit());
    case 'setGlobalConcurrency':
      return withQueue(cmd, (q) => q.setGlobalConcurrency(step.setGlobalConcurrency.concurrency));
    case 'removeGlobalConcurrency':
      return withQueue(cmd, (q) => q.removeGlobalConcurrency());
    case 'rateLimit':
      return withQueue(cmd, (q) => q.rateLimit(step.rateLimit.ms));
    case 'removeRateLimitKey':
      return withQueue(cmd, (q) => q.removeRateLimitKey());
    case 'work':
      // a work step may name another queue than the scenario's (a flow over several queues)
      return work({ ...cmd, queue: step.work.queue ?? cmd.queue }, scenario, step.work);
    case 'awaitWork':
      return awaitWork();
    case 'manual':
      return manual({ ...cmd, queue: step.manual.queue ?? cmd.queue }, step.manual);
    default:
      throw new Error(`unknown step ${JSON.stringify(step)}`);
  }
}

// How bullmq's API reads the queue: its job counts by state, and the state of each job id given.
async function read(cmd) {
  return withQueue(cmd, async (queue) => {
    const states = {};
    for (const id of cmd.read) {
      states[id] = await queue.getJobState(id);
    }
    // every state bullmq counts, 'paused' included (its default list leaves that one out)
    const counts = await queue.getJobCounts('active', 'completed', 'delayed', 'failed', 'paused', 'prioritized',
      'waiting', 'waiting-children');
    // job schedulers (earliest next first) and the limits, as the API gives them
    const schedulers = (await queue.getJobSchedulers(0, -1, true)).map((j) => ({
      key: j.key, name: j.name, next: j.next, iterationCount: j.iterationCount ?? null, limit: j.limit ?? null,
      startDate: j.startDate ?? null, endDate: j.endDate ?? null, tz: j.tz ?? null, pattern: j.pattern ?? null,
      every: j.every ?? null, offset: j.offset ?? null, data: j.template?.data ?? null,
      attempts: j.template?.opts?.attempts ?? null, priority: j.template?.opts?.priority ?? null,
    }));
    const limits = {
      schedulersCount: await queue.getJobSchedulersCount(),
      globalConcurrency: await queue.getGlobalConcurrency(),
      globalRateLimit: await queue.getGlobalRateLimit(),
      rateLimitTtl: (await queue.getRateLimitTtl()) > 0 ? 'positive' : 'none',
      isMaxed: await queue.isMaxed(),
    };
    return { counts, states, schedulers, limits };
  });
}

// Commands run strictly one after another, in arrival order.
let chain = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (!line.trim()) {
    return;
  }
  chain = chain.then(async () => {
    const cmd = JSON.parse(line);
    try {
      if (cmd.read) {
        out({ read: await read(cmd) });
        return;
      }
      if (cmd.abandon) { // after a failed run: close a background worker at once, its outcomes no longer awaited
        if (background) {
          const w = background;
          background = null;
          await w.worker.close(true);
          await w.queue.close();
          await w.redis.quit();
        }
        out({ abandoned: true });
        return;
      }
      if (cmd.finish) { // a run that ended with its worker still running (to see a job active)
        if (background) {
          await awaitWork();
        }
        out({ finished: true });
        return;
      }
      await runStep(cmd);
      out({ done: cmd.step });
    } catch (err) {
      out({ step: cmd.step, error: String(err?.stack ?? err) });
    }
  });
});
lines.on('close', () => {
  chain.then(() => process.exit(0));
});
