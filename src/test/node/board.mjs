// Serves bull-board (the BullMQ dashboard) over the given queues, for io.bull4j.interop.BullBoardTest:
// the Java side fills the queues with bull4j and reads the board's JSON API to see what a BullMQ user would.
// Usage: node board.mjs <redisUrl> <queue> [queue...]
// Contract: the first stdout line is {"port":N} (a free loopback port); it runs until killed or stdin closes.
import express from 'express';
import { Queue } from 'bullmq';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';

// why: a stray console.log (ours or a library's) must not corrupt the JSON stream
console.log = (...args) => console.error(...args);
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

const [url, ...queueNames] = process.argv.slice(2);
if (!url || queueNames.length === 0) {
  console.error('usage: node board.mjs <redisUrl> <queue> [queue...]');
  process.exit(64);
}

// Queues built the way a BullMQ app hands them to the board.
const queues = queueNames.map((name) => new Queue(name, { connection: { url } }));
const serverAdapter = new ExpressAdapter();
serverAdapter.setBasePath('/');
createBullBoard({
  queues: queues.map((q) => new BullMQAdapter(q)),
  serverAdapter,
  // why: the board then checks every answer against its own schema (a 500 on mismatch), so a field that
  // bull4j stores in a shape BullMQ would not (a string for a number, say) fails the test loudly
  options: { validateResponses: true },
});

const app = express();
app.use('/', serverAdapter.getRouter());

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  server.close();
  await Promise.allSettled(queues.map((q) => q.close()));
  process.exit(code);
}

const server = app.listen(0, '127.0.0.1', () => out({ port: server.address().port }));
server.on('error', (err) => {
  console.error('board server failed:', err);
  stop(1);
});

// why stdin: when the JVM that started us dies, the pipe closes and we go too
process.stdin.on('end', () => stop(0));
process.stdin.on('close', () => stop(0));
process.stdin.resume();
process.on('SIGTERM', () => stop(0));
