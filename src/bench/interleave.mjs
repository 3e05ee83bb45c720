#!/usr/bin/env node
// The interleaved side-by-side benchmark (docs/benchmarks.md, "Interleaved comparison"); src/bench/interleave.sh
// builds, starts Redis and calls this. For each variant it runs BullMQ (src/bench/node/driver.mjs) and bull4j
// (src/bench/run-bench.sh, one variant, one measured run) one after the other, pair after pair, on one Redis that
// is flushed between runs, so that the machine's drift lands on both sides of every pair. Each ratio is the
// median of the pair ratios, with min-max and IQR. An optional baseline (another bull4j checkout, built) runs as
// a third member of every pair.
//
// Usage: node interleave.mjs --port P --pairs 5 --variants process/c10-keep,add/sequential --out-dir DIR
//                            [--n 50000] [--warmup-n 2000] [--jit-warmup-n 20000] [--baseline DIR]
//                            [--baseline-label 2ed13ca] [--quick] [--close]
// --close keeps each role's process running for a variant (warmed once, then asked for each run), so that a pair's
// measured windows are seconds apart; without it every run is a fresh process (the JVM with its own JIT warm-up).
// --baseline takes a comma-separated list of checkouts (roles C, D, ...), --baseline-label as many labels.
// Issue 10's variants: schedulers/n<N>-c<C>[-remove] (--duration-s, --warmup-s) and limiter/max<M>-c<C> (--windows), each
// with its own measures in the summary. Issue 11's: flows/add-1x<W>[-inflight<K>] and flows/process-1x<W>-c<C>
// (--flows, default 1000, quick 100; --n does not apply to them). Issue 15's: latency/c1-sequential (--n-latency
// sequential jobs, default 2000, quick 300, after 50 uncounted ones) and delayed/bulk<N> (N delayed jobs added
// through addBulk while a worker runs; N comes from the name, --n does not apply).
// Writes DIR/raw.jsonl (every run's 'bullmq-bench/1' line, tagged with variant, pair and role), DIR/summary.md
// and each role's whole stderr as DIR/stderr-<role>.log; prints the summary too.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const key = process.argv[i];
  if (!key.startsWith('--')) throw new Error(`unexpected argument ${key}`);
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) args[key.slice(2)] = 'true';
  else { args[key.slice(2)] = next; i++; }
}
const QUICK = args.quick === 'true';
const PORT = Number(args.port ?? 6390);
const PAIRS = Number(args.pairs ?? (QUICK ? 1 : 5));
const VARIANTS = String(args.variants ?? 'process/c10-keep,add/sequential').split(',').filter(Boolean);
const N = Number(args.n ?? (QUICK ? 2000 : 50000));
const WARMUP_N = Number(args['warmup-n'] ?? (QUICK ? 200 : 2000));
const JIT_WARMUP_N = Number(args['jit-warmup-n'] ?? (QUICK ? 500 : 20000));
const OUT_DIR = args['out-dir'] ?? path.join(HERE, '../../target/interleave');
const DURATION_S = args['duration-s']; // schedulers: the measured window (default 60 s on both sides)
const WARMUP_S = args['warmup-s']; // schedulers: the running time before the window (default 5 s)
const WINDOWS = args.windows; // limiter: the measured one-second windows (default 10)
const FLOWS = String(args.flows ?? (QUICK ? 100 : 1000)); // flows: the flows of a measured run
// latency: the counted sequential jobs of a run (each waits for the previous one's completion, so not --n)
const N_LATENCY = String(args['n-latency'] ?? (QUICK ? 300 : 2000));
// --close: each role runs as one warmed process per variant (run-bench.sh --serve, driver.mjs --serve), asked for one
// run at a time, so that a pair's measured windows are seconds apart instead of a JVM start and JIT warm-up (about
// 15 s) apart; BullMQ's driver gets the same number of warm-up jobs as the JVM's JIT warm-up has per path
const CLOSE = args.close === 'true';
const DRIFT = 0.15;
// measures compared; "better" says which way a ratio bull4j / BullMQ below or above 1 is a win
const MEASURES = [
  ['jobs_per_s', 'jobs/s', 'higher'],
  ['node_cpu_us_per_job', 'client CPU µs/job (Node / JVM)', 'lower'],
  ['redis_cpu_us_per_job', 'Redis CPU µs/job', 'lower'],
];
// issue 10's modes have measures of their own
const MODE_MEASURES = {
  schedulers: [
    ['jobs_per_s', 'iterations/s sustained', 'higher'],
    ['late_p50_ms', 'lateness p50 ms', 'lower'],
    ['late_p99_ms', 'lateness p99 ms', 'lower'],
    ['node_cpu_us_per_job', 'client CPU µs/iteration (Node / JVM)', 'lower'],
    ['redis_cpu_us_per_job', 'Redis CPU µs/iteration', 'lower'],
  ],
  flows: [
    ['jobs_per_s', 'jobs/s (11 per flow of 1x10)', 'higher'],
    ['node_cpu_us_per_job', 'client CPU µs/job (Node / JVM)', 'lower'],
    ['redis_cpu_us_per_job', 'Redis CPU µs/job', 'lower'],
    ['cmd_calls_per_job', 'Redis commands/job (commandstats: sent and run by scripts)', 'lower'],
  ],
  latency: [
    ['start_p50_ms', 'add → processor start p50 ms', 'lower'],
    ['start_p99_ms', 'add → processor start p99 ms', 'lower'],
    ['start_max_ms', 'add → processor start max ms', 'lower'],
    ['completed_event_p50_ms', 'add → completed event p50 ms', 'lower'],
    ['completed_event_p99_ms', 'add → completed event p99 ms', 'lower'],
    ['completed_event_max_ms', 'add → completed event max ms', 'lower'],
    ['node_cpu_us_per_job', 'client CPU µs/job (Node / JVM)', 'lower'],
    ['redis_cpu_us_per_job', 'Redis CPU µs/job', 'lower'],
  ],
  delayed: [
    ['late_p50_ms', 'lateness p50 ms', 'lower'],
    ['late_p99_ms', 'lateness p99 ms', 'lower'],
    ['late_max_ms', 'lateness max ms', 'lower'],
    ['late_during_add_p99_ms', 'lateness p99 ms, jobs due before the add returned', 'lower'],
    ['add_s', 'bulk add s (worker running)', 'lower'],
    ['node_cpu_us_per_job', 'client CPU µs/job (Node / JVM)', 'lower'],
    ['redis_cpu_us_per_job', 'Redis CPU µs/job', 'lower'],
  ],
  limiter: [
    ['jobs_per_s', 'rate over the windows, jobs/s', 'closer to max'],
    ['window_min', 'fewest jobs in a window (Redis clock)', 'closer to max'],
    ['window_max', 'most jobs in a window (Redis clock)', 'never above max'],
    ['client_window_max', 'most jobs in a window, client clock (processedOn)', 'see docs'],
    ['run_client_cpu_ms_per_s', 'client CPU ms/s over the limited run', 'lower'],
    ['limited_client_cpu_ms_per_s', 'client CPU ms/s while held by the limit', 'lower'],
    ['limited_redis_cmds_per_s', 'Redis commands/s while held by the limit', 'lower'],
    ['redis_cpu_us_per_job', 'Redis CPU µs/job', 'lower'],
  ],
};
const measuresOf = (variant) => MODE_MEASURES[variant.split('/')[0]] ?? MEASURES;
fs.mkdirSync(OUT_DIR, { recursive: true });
const RAW = path.join(OUT_DIR, 'raw.jsonl');
const log = (msg) => process.stderr.write(`[interleave ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

function redis(...cmd) {
  const r = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(PORT), ...cmd], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`redis-cli ${cmd.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function javaArgs(variant) {
  const [mode, name] = variant.split('/');
  const common = ['--port', String(PORT), '--runs', '1', '--quiet-wait-s', '0', '--warmup-n', String(WARMUP_N),
    '--jit-warmup-n', String(JIT_WARMUP_N)];
  let m;
  if (mode === 'process' && (m = name.match(/^c(\d+)-(keep|remove)$/))) {
    return [...common, '--modes', 'process', '--conc', m[1], '--retention', m[2], '--n-process', String(N)];
  }
  if (mode === 'add' && name === 'sequential') {
    return [...common, '--modes', 'add', '--add-inflight', '1', '--n-add', String(N)];
  }
  if (mode === 'add' && (m = name.match(/^inflight(\d+)$/))) {
    return [...common, '--modes', 'add', '--add-inflight', m[1], '--n-add', String(N)];
  }
  if (mode === 'latency' && name === 'c1-sequential') {
    return [...common, '--modes', 'latency', '--n-latency', N_LATENCY];
  }
  if (mode === 'delayed' && (m = name.match(/^bulk(\d+)$/))) {
    return [...common, '--modes', 'delayed-bulk', '--n-delayed', m[1]];
  }
  if (mode === 'schedulers' && (m = name.match(/^n(\d+)-c(\d+)(-remove)?$/))) {
    return [...common.slice(0, 6), '--jit-warmup-n', '0', '--modes', 'schedulers', '--scale-runs', '1',
      '--sched-n', m[1], '--sched-conc', m[2], '--sched-retention', m[3] ? 'remove' : 'keep',
      ...(DURATION_S ? ['--sched-duration-s', DURATION_S] : []), ...(WARMUP_S ? ['--sched-warmup-s', WARMUP_S] : [])];
  }
  if (mode === 'limiter' && (m = name.match(/^max(\d+)-c(\d+)$/))) {
    return [...common.slice(0, 6), '--jit-warmup-n', '0', '--modes', 'limiter', '--scale-runs', '1',
      '--limiter-max', m[1], '--limiter-conc', m[2], ...(WINDOWS ? ['--limiter-windows', WINDOWS] : [])];
  }
  if (mode === 'flows' && (m = name.match(/^add-1x(\d+)(?:-inflight(\d+))?$/))) {
    return [...common, '--modes', 'flows-add', '--flows-n', FLOWS, '--flows-width', m[1],
      '--flows-inflight', m[2] ?? '1'];
  }
  if (mode === 'flows' && (m = name.match(/^process-1x(\d+)-c(\d+)$/))) {
    return [...common, '--modes', 'flows-process', '--flows-n', FLOWS, '--flows-width', m[1], '--flows-conc', m[2]];
  }
  throw new Error(`variant ${variant} is not supported (process/c<N>-keep|remove, add/sequential, add/inflight<N>, `
    + 'latency/c1-sequential, delayed/bulk<N>, schedulers/n<N>-c<C>[-remove], limiter/max<M>-c<C>, '
    + 'flows/add-1x<W>[-inflight<K>], flows/process-1x<W>-c<C>)');
}
function nodeArgs(variant) {
  const [mode] = variant.split('/');
  const extra = [];
  if (mode === 'schedulers') {
    if (DURATION_S) extra.push('--duration-s', DURATION_S);
    if (WARMUP_S) extra.push('--warmup-s', WARMUP_S);
  }
  if (mode === 'limiter' && WINDOWS) extra.push('--windows', WINDOWS);
  if (mode === 'flows') extra.push('--flows', FLOWS);
  if (mode === 'latency') extra.push('--n', N_LATENCY); // the driver's last --n wins
  return extra;
}

// the roles of a pair, in the order they run
const ROLES = [
  { role: 'A', label: 'BullMQ 6.7.0', cmd: (v) => ['node', [path.join(HERE, 'node/driver.mjs'), '--port', String(PORT),
    '--variant', v, '--n', String(N), '--warmup-n', String(WARMUP_N), ...nodeArgs(v),
    ...(CLOSE ? ['--serve-warmup-n', String(JIT_WARMUP_N)] : [])]] },
  { role: 'B', label: 'bull4j (this tree)', cmd: (v) => ['bash', [path.join(HERE, 'run-bench.sh'), ...javaArgs(v)]] },
];
const BASE_LABELS = String(args['baseline-label'] ?? '').split(',');
String(args.baseline ?? '').split(',').filter(Boolean).forEach((d, i) => {
  const dir = path.resolve(d);
  ROLES.push({ role: String.fromCharCode(67 + i), label: `bull4j ${BASE_LABELS[i] || path.basename(dir)} (baseline)`,
    cmd: (v) => ['bash', [path.join(dir, 'src/bench/run-bench.sh'), ...javaArgs(v)]] });
});
const BASES = ROLES.slice(2);

// every role's stderr, whole, in DIR/stderr-<role>.log (a worker's warnings explain a stall the lines only show),
// each run marked by a line before it
const stderrLog = (role) => path.join(OUT_DIR, `stderr-${role.role}.log`);

// a role's process kept running for a variant (--close: BullMQ's driver or a bull4j harness), its lines read as they
// come
class Served {
  constructor(role, variant) {
    const [bin, argv] = role.cmd(variant);
    this.label = `${role.label} ${variant}`;
    this.proc = spawn(bin, [...argv, '--serve'], { env: { ...process.env, BENCH_SKIP_BUILD: '1' },
      stdio: ['pipe', 'pipe', 'pipe'] });
    this.lines = [];
    this.waiters = [];
    this.stderr = '';
    let buf = '';
    this.proc.stdout.setEncoding('utf8').on('data', (d) => {
      buf += d;
      for (let i; (i = buf.indexOf('\n')) >= 0;) {
        this.lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
      this.wake();
    });
    this.proc.stderr.setEncoding('utf8').on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-3000);
      fs.appendFileSync(stderrLog(role), d);
    });
    this.proc.on('exit', (code) => { this.exitCode = code; this.wake(); });
  }

  wake() {
    this.waiters.splice(0).forEach((w) => w());
  }

  // the lines up to (without) the next {"serve": what} line
  async until(what) {
    const got = [];
    for (;;) {
      while (this.lines.length) {
        const l = this.lines.shift();
        if (l.startsWith('{"serve"')) {
          if (JSON.parse(l).serve === what) return got;
        } else if (l.startsWith('{')) got.push(JSON.parse(l));
      }
      if (this.exitCode !== undefined) {
        throw new Error(`${this.label} ended (exit ${this.exitCode}) before "${what}":\n${this.stderr}`);
      }
      await new Promise((resolve) => this.waiters.push(resolve));
    }
  }

  async run() {
    this.proc.stdin.write('run\n');
    return this.until('done');
  }

  async quit() {
    this.proc.stdin.end('quit\n');
    if (this.exitCode === undefined) await new Promise((resolve) => this.proc.on('exit', resolve));
  }
}

async function runOne(variant, role, served) {
  redis('FLUSHALL', 'SYNC');
  const t0 = Date.now();
  fs.appendFileSync(stderrLog(role), `--- ${variant}: run started ${new Date(t0).toISOString()} ---\n`);
  const [mode, name] = variant.split('/');
  let lines;
  if (served) {
    lines = await served.run();
  } else {
    const [bin, argv] = role.cmd(variant);
    const r = spawnSync(bin, argv, { encoding: 'utf8', env: { ...process.env, BENCH_SKIP_BUILD: '1' },
      maxBuffer: 64 << 20 });
    fs.appendFileSync(stderrLog(role), r.stderr ?? '');
    if (r.status !== 0) throw new Error(`${role.label} ${variant} failed (exit ${r.status}):\n${r.stderr.slice(-3000)}`);
    lines = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  }
  const line = lines.find((l) => l.mode === mode && l.variant === name);
  if (!line) throw new Error(`${role.label} wrote no ${variant} line:\n${JSON.stringify(lines).slice(-2000)}`);
  return { ...line, interleave: { variant, role: role.role, label: role.label, started: new Date(t0).toISOString(),
    process_s: (Date.now() - t0) / 1000, served: Boolean(served) } };
}

const quantile = (sorted, q) => {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (pos - lo);
};
const stats = (xs) => {
  // a ratio of 0 to 0 (a lateness p50 of 0 ms on both sides) has no value: left out
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return { median: NaN, min: NaN, max: NaN, q1: NaN, q3: NaN };
  return { median: quantile(s, 0.5), min: s[0], max: s[s.length - 1], q1: quantile(s, 0.25), q3: quantile(s, 0.75) };
};
const fmt = (x) => (x === undefined || Number.isNaN(x) ? '–' : Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en')
  : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));
// a value with no sample (JSON null: no job was due during the add) is NaN, never 0 in a ratio
const metric = (line, k) => line.per_run[0][k] ?? NaN;
const ratio = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');

// a pair drifts when one side's Redis CPU per job is more than 15 % away from that side's median over the pairs:
// the same implementation doing the same work should cost Redis the same
function driftFlags(pairs) {
  const flags = pairs.map(() => []);
  for (const role of ROLES) {
    const xs = pairs.map((p) => metric(p[role.role], 'redis_cpu_us_per_job'));
    const med = stats(xs).median;
    xs.forEach((x, i) => {
      if (Math.abs(x / med - 1) > DRIFT) flags[i].push(`${role.role} ${fmt(x)} vs median ${fmt(med)}`);
    });
  }
  return flags;
}

const rotated = (xs, k) => xs.map((_, j) => xs[(j + k) % xs.length]);

function summarize(results) {
  const out = [];
  const first = Object.values(results).flat()[0]?.A;
  const orders = [0, 1].map((k) => rotated(ROLES, k).map((r) => r.role).join(' ')).join(', ');
  out.push(`Interleaved run: ${PAIRS} pair(s) per variant, order rotating from pair to pair (${orders}, …); `
    + `one Redis (${first?.redis_version ?? '?'}, port ${PORT}), FLUSHALL SYNC before every run. `
    + `n = ${N}, warm-up ${WARMUP_N} jobs per run, bull4j JIT warm-up ${JIT_WARMUP_N} jobs per path`
    + (CLOSE ? ` (BullMQ's driver as many), once per variant: each role one process serving its runs (--close).`
      : '.'));
  out.push('');
  out.push(ROLES.map((r) => `${r.role} = ${r.label}`).join('; ') + '. Ratios are per pair, then the median over '
    + 'the pairs; spread = min–max, IQR = q1–q3 of the pair ratios.');
  out.push('');
  out.push('| variant | measure | ' + ROLES.map((r) => `${r.role} median`).join(' | ')
    + ' | ratio B/A median | B/A min–max | B/A IQR | better |'
    + BASES.map((r) => ` ratio B/${r.role} median | B/${r.role} min–max |`).join(''));
  out.push('| --- | --- | ' + ROLES.map(() => '---').join(' | ') + ' | --- | --- | --- | --- |'
    + BASES.map(() => ' --- | --- |').join(''));
  for (const [variant, pairs] of Object.entries(results)) {
    for (const [key, title, better] of measuresOf(variant)) {
      const per = Object.fromEntries(ROLES.map((r) => [r.role, stats(pairs.map((p) => metric(p[r.role], key)))]));
      const ba = stats(pairs.map((p) => metric(p.B, key) / metric(p.A, key)));
      let row = `| ${variant} | ${title} | ${ROLES.map((r) => fmt(per[r.role].median)).join(' | ')} | `
        + `**${ratio(ba.median)}** | ${ratio(ba.min)}–${ratio(ba.max)} | ${ratio(ba.q1)}–${ratio(ba.q3)} `
        + `| ${better} |`;
      for (const base of BASES) {
        const bc = stats(pairs.map((p) => metric(p.B, key) / metric(p[base.role], key)));
        row += ` **${ratio(bc.median)}** | ${ratio(bc.min)}–${ratio(bc.max)} |`;
      }
      out.push(row);
    }
  }
  out.push('');
  out.push('Per pair (drift: a side whose Redis CPU µs/job is more than 15 % from its own median over the pairs; '
    + 'other util = cores used by the rest of the machine during the measured window):');
  out.push('');
  out.push('| variant | pair | ' + ROLES.map((r) => `${r.role} jobs/s`).join(' | ') + ' | '
    + ROLES.map((r) => `${r.role} Redis µs/job`).join(' | ') + ' | ' + ROLES.map((r) => `${r.role} other util`).join(' | ')
    + ' | B/A jobs/s | drift |');
  out.push('| --- | --- | ' + ROLES.map(() => '---').join(' | ') + ' | ' + ROLES.map(() => '---').join(' | ') + ' | '
    + ROLES.map(() => '---').join(' | ') + ' | --- | --- |');
  for (const [variant, pairs] of Object.entries(results)) {
    const flags = driftFlags(pairs);
    pairs.forEach((p, i) => {
      out.push(`| ${variant} | ${i + 1} | ${ROLES.map((r) => fmt(metric(p[r.role], 'jobs_per_s'))).join(' | ')} | `
        + `${ROLES.map((r) => fmt(metric(p[r.role], 'redis_cpu_us_per_job'))).join(' | ')} | `
        + `${ROLES.map((r) => fmt(metric(p[r.role], 'other_util'))).join(' | ')} | `
        + `${(metric(p.B, 'jobs_per_s') / metric(p.A, 'jobs_per_s')).toFixed(2)} | `
        + `${flags[i].length ? 'DRIFT: ' + flags[i].join('; ') : 'ok'} |`);
    });
  }
  return out.join('\n') + '\n';
}

const results = {};
for (const variant of VARIANTS) {
  javaArgs(variant); // refuses an unsupported variant before anything runs
  results[variant] = [];
}
for (const variant of VARIANTS) {
  // --close: every role's process (BullMQ's driver too) starts and warms up, one after the other, before the
  // variant's first pair
  const served = {};
  if (CLOSE) {
    for (const role of ROLES) {
      redis('FLUSHALL', 'SYNC');
      served[role.role] = new Served(role, variant);
      await served[role.role].until('ready');
      log(`${variant} ${role.role}: warmed, serving`);
    }
  }
  for (let i = 0; i < PAIRS; i++) {
    const pair = {};
    // the order rotates from pair to pair (A B C, B C A, C A B, ...): what one run leaves behind on the machine
    // (a process winding down, kernel work) lands on every role in turn instead of always on the one after A
    for (const role of rotated(ROLES, i)) {
      const line = await runOne(variant, role, served[role.role]);
      line.interleave.pair = i + 1;
      fs.appendFileSync(RAW, JSON.stringify(line) + '\n');
      pair[role.role] = line;
      log(`${variant} pair ${i + 1}/${PAIRS} ${role.role}: ${fmt(metric(line, 'jobs_per_s'))} jobs/s, client `
        + `${fmt(metric(line, 'node_cpu_us_per_job'))} µs/job, Redis ${fmt(metric(line, 'redis_cpu_us_per_job'))} µs/job, `
        + `other util ${fmt(metric(line, 'other_util'))} (${line.interleave.process_s.toFixed(0)} s)`);
    }
    results[variant].push(pair);
  }
  for (const s of Object.values(served)) await s.quit();
}
const summary = summarize(results);
fs.writeFileSync(path.join(OUT_DIR, 'summary.md'), summary);
process.stdout.write(summary);
