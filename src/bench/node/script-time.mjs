// Redis's time per script call during any run, from its SLOWLOG: `start` logs every command from then on
// (slowlog-log-slower-than 0), `report` groups the log of the last --window-s seconds by script. A call's time
// includes the commands it runs, which the log also lists on their own lines. bull4j's scripts are named (the SHA-1
// of each lua/ script as LuaScript.java assembles it); others show their SHA-1's start, key and argument counts.
// Commands a script runs are logged too, so the sum of all lines counts them twice; read per call, not the total.
// Turn the log off afterwards with `stop`. Only on a throwaway Redis: the log holds every command's arguments.
//
// Usage: node script-time.mjs --port P start|report|stop [--window-s 8] [--top 15]
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import IORedis from 'ioredis';
import { assemble } from './lua-text.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LUA = path.join(HERE, '../../../lua');
const what = process.argv.slice(2).find((a) => ['start', 'report', 'stop'].includes(a));
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i].startsWith('--')) args[process.argv[i].slice(2)] = process.argv[++i];
}
const redis = new IORedis({ port: Number(args.port ?? 6379), host: '127.0.0.1' });

try {
  if (what === 'start') {
    await redis.config('SET', 'slowlog-max-len', '2000000');
    await redis.slowlog('RESET');
    await redis.config('SET', 'slowlog-log-slower-than', '0');
  } else if (what === 'stop') {
    await redis.config('SET', 'slowlog-log-slower-than', '10000');
    await redis.slowlog('RESET');
  } else if (what === 'report') {
    const names = new Map();
    for (const f of fs.readdirSync(LUA).filter((f) => f.endsWith('.lua'))) {
      const name = f.replace(/\.lua$/, '');
      names.set(crypto.createHash('sha1').update(assemble(LUA, name)).digest('hex'), `bull4j ${name}`);
    }
    const entries = await redis.slowlog('GET', '-1');
    const newest = entries.reduce((m, e) => Math.max(m, Number(e[1])), 0);
    const since = newest - Number(args['window-s'] ?? 8);
    const by = new Map();
    for (const [, at, us, argv] of entries) {
      if (Number(at) < since) continue;
      let label = String(argv[0]).toLowerCase();
      if (label === 'evalsha') {
        const keys = Number(argv[2]);
        label = names.get(String(argv[1])) ?? `evalsha ${String(argv[1]).slice(0, 8)} (${keys} keys, `
          + `${argv.length - 3 - keys} args)`;
      }
      const s = by.get(label) ?? { calls: 0, us: 0 };
      s.calls++;
      s.us += Number(us);
      by.set(label, s);
    }
    const rows = [...by.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, Number(args.top ?? 15));
    console.log(`last ${args['window-s'] ?? 8} s of the log (${entries.length} entries in all)`);
    for (const [label, s] of rows) {
      console.log(`${String(s.calls).padStart(8)} calls ${(s.us / s.calls).toFixed(1).padStart(8)} µs/call  ${label}`);
    }
  } else {
    throw new Error('usage: node script-time.mjs --port P start|report|stop [--window-s 8] [--top 15]');
  }
} finally {
  redis.disconnect();
}
