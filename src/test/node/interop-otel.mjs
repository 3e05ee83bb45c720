// The real bullmq with OpenTelemetry (bullmq-otel) for io.bull4j.otel.OpenTelemetryInteropTest: a producer whose
// add span's context goes into the job, and a worker whose process span continues the context a job carries.
// The OpenTelemetry SDK records the spans in memory; each command prints them as JSON when it ends.
// Contract: stdout carries only JSON, one object per line; everything else goes to stderr; every command ends by
// itself (the worker after its count; a bounded timeout exits with code 2).
// Usage: node interop-otel.mjs <command> <redisUrl> <queue> [json]  (see USAGE)
import { FlowProducer, Queue, Worker } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { dispatch } from './cli.mjs';

const USAGE = `commands:
  add  <url> <queue> <argsJson>   {name, data}: queue.add with telemetry; prints {id, opts, spans}
  flow <url> <queue> <argsJson>   {}: a FlowProducer with telemetry adds parent "parent" with one child "child"
                                  in <queue>, both given opts (BullMQ stores a node's context only then);
                                  prints {parentId, childId, spans}
  schedule <url> <queue> <argsJson>
                                  {everyMs}: queue.upsertJobScheduler("tick", {every}, {name: "tick-job"}) with
                                  telemetry; prints {spans}
  work <url> <queue> <argsJson>   {count, timeoutMs}: a Worker with telemetry that completes count jobs
                                  (result "done by node"); prints {completed: [ids], spans}`;

console.log = (...args) => console.error(...args); // a stray log must not corrupt the JSON stream
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

const [command, url, queueName, json] = process.argv.slice(2);
if (!command || !url || !queueName) {
  console.error(USAGE);
  process.exit(64);
}
const connection = { url };
const args = json ? JSON.parse(json) : {};

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const telemetry = new BullMQOtel({ tracerName: 'bull4j-interop' });

/** The finished spans as plain JSON: name, kind (OpenTelemetry's numbers), ids, attributes and events. */
function spans() {
  return exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    kind: s.kind,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? s.parentSpanId ?? null,
    attributes: s.attributes,
    events: s.events.map((e) => ({ name: e.name, attributes: e.attributes ?? {} })),
  }));
}

async function add() {
  const queue = new Queue(queueName, { connection, telemetry });
  try {
    const job = await queue.add(args.name, args.data ?? {});
    out({ id: job.id, opts: job.opts, spans: spans() });
    return 0;
  } finally {
    await queue.close();
  }
}

async function flow() {
  const flows = new FlowProducer({ connection, telemetry });
  try {
    const tree = await flows.add({ name: 'parent', queueName, data: {}, opts: { attempts: 1 },
      children: [{ name: 'child', queueName, data: {}, opts: { attempts: 1 } }] });
    out({ parentId: tree.job.id, childId: tree.children[0].job.id, spans: spans() });
    return 0;
  } finally {
    await flows.close();
  }
}

async function schedule() {
  const queue = new Queue(queueName, { connection, telemetry });
  try {
    await queue.upsertJobScheduler('tick', { every: args.everyMs ?? 200 }, { name: 'tick-job', data: {} });
    out({ spans: spans() });
    return 0;
  } finally {
    await queue.close();
  }
}

async function work() {
  const completed = [];
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const timer = setTimeout(() => done(2), args.timeoutMs ?? 30000);
  const worker = new Worker(queueName, async () => 'done by node', { connection, telemetry, drainDelay: 1 });
  worker.on('completed', (job) => {
    completed.push(job.id);
    if (completed.length >= (args.count ?? 1)) done(0);
  });
  worker.on('error', (err) => console.error('worker error:', err));
  const code = await finished;
  clearTimeout(timer);
  await worker.close();
  out({ completed, spans: spans() });
  return code;
}

dispatch('interop-otel.mjs', { add, flow, schedule, work }, command, USAGE);
