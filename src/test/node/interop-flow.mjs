// Flows with the REAL bullmq, for io.bull4j.interop.InteropFlowTest.
// Contract: stdout carries only JSON, one object per line; everything else goes to stderr.
// Usage: node interop-flow.mjs <command> <redisUrl> [args...]  (see USAGE below)
import { FlowProducer, Queue, Worker, Job } from 'bullmq';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  addFlow  <url> <flowJson>               add a flow (bullmq FlowJob JSON); prints the tree of ids
  getFlow  <url> <queue> <id>             prints getFlow's tree: id, name, queue, data, parentKey, counts, children
  work     <url> <queue> <count>          runs a worker until <count> jobs completed or failed for good; each
                                          returns {by:'node', n: data.n * 2, children: getChildrenValues()}, or
                                          fails when data.fail is set; prints each ({id, name, result} or
                                          {id, name, failedReason})
  dependencies <url> <queue> <parentId> <type> <start> <end>
                                          prints queue.getDependencies(parentId, type, start, end): items (id and
                                          v, or err), the jobs read with them (name, data, parentKey), total`;
const TIMEOUT_MS = 30_000;

console.log = (...args) => console.error(...args);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

const [command, url, ...rest] = process.argv.slice(2);
if (!command || !url) {
  console.error(USAGE);
  process.exit(64);
}
const connection = { url };

function ids(node) {
  return { id: node.job.id, queue: node.job.queueName, children: (node.children ?? []).map(ids) };
}

async function describe(node) {
  const job = node.job;
  return {
    id: job.id,
    name: job.name,
    queue: job.queueName,
    data: job.data,
    parentKey: job.parentKey ?? null,
    counts: await job.getDependenciesCount(),
    children: await Promise.all((node.children ?? []).filter(Boolean).map(describe)),
  };
}

async function addFlow(flowJson) {
  const producer = new FlowProducer({ connection });
  try {
    out(ids(await producer.add(JSON.parse(flowJson))));
    return 0;
  } finally {
    await producer.close();
  }
}

async function getFlow(queueName, id) {
  const producer = new FlowProducer({ connection });
  try {
    const tree = await producer.getFlow({ id, queueName });
    out(tree ? await describe(tree) : { missing: true });
    return 0;
  } finally {
    await producer.close();
  }
}

async function work(queueName, count) {
  const want = Number(count);
  let done = 0;
  let finish;
  const finished = new Promise((resolve) => { finish = resolve; });
  const worker = new Worker(queueName, async (job) => {
    if (job.data?.fail) {
      throw new Error(job.data.fail);
    }
    return { by: 'node', n: (job.data?.n ?? 0) * 2, children: (await job.getChildrenValues()) ?? {} };
  }, { connection, concurrency: 1 });
  worker.on('completed', (job, result) => {
    out({ id: job.id, name: job.name, result });
    if (++done >= want) finish(0);
  });
  worker.on('failed', (job, err) => {
    console.error(`job ${job?.id} failed: ${err?.message}`);
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) {
      out({ id: job.id, name: job.name, failedReason: job.failedReason });
      if (++done >= want) finish(0);
    }
  });
  const timer = setTimeout(() => finish(2), TIMEOUT_MS);
  const code = await finished;
  clearTimeout(timer);
  await worker.close();
  return code;
}

async function dependencies(queueName, parentId, type, start, end) {
  const queue = new Queue(queueName, { connection });
  try {
    const page = await queue.getDependencies(parentId, type, Number(start), Number(end));
    out({ items: page.items, jobs: page.jobs.map((j) => ({ name: j.name ?? null, data: j.data, parentKey: j.parentKey ?? null })),
      total: page.total });
    return 0;
  } finally {
    await queue.close();
  }
}

dispatch('interop-flow.mjs', {
  addFlow: () => addFlow(rest[0]),
  getFlow: () => getFlow(rest[0], rest[1]),
  work: () => work(rest[0], rest[1]),
  dependencies: () => dependencies(rest[0], rest[1], rest[2], rest[3], rest[4]),
}, command, USAGE);
