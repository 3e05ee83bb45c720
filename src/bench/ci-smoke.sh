#!/usr/bin/env bash
# CI smoke test of the benchmark harness: starts a throwaway redis-server (no persistence) on a free port, runs
# `run-bench.sh --quick` against it, and checks that every expected (mode, variant) line was written with
# jobs_per_s > 0. Then two quick interleaved pairs (interleave.sh --quick --close: BullMQ's Node driver and bull4j,
# each one process serving its runs, one variant, tiny N) on a Redis of its own, checking its raw lines and summary. It keeps the harnesses working; it
# asserts nothing about speed. Always stops its redis-servers.
#
# Usage: src/bench/ci-smoke.sh [PORT]     (default: a free port; env BENCH_SKIP_BUILD=1 skips the Maven build)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v redis-server >/dev/null || { echo "ci-smoke: redis-server is not on PATH" >&2; exit 1; }
command -v node >/dev/null || { echo "ci-smoke: node is not on PATH (it checks the JSON lines)" >&2; exit 1; }

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
PORT="${1:-$(free_port)}"
if redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; then
  echo "ci-smoke: port $PORT already answers PING; refusing to use a server this script did not start" >&2
  exit 1
fi
WORK="$(mktemp -d /tmp/bull4j-ci-smoke.XXXXXX)"
REDIS_PID=""
cleanup() {
  if [[ -n "$REDIS_PID" ]]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
  --logfile "$WORK/redis.log" &
REDIS_PID=$!
for _ in $(seq 1 50); do
  redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1 && break
  sleep 0.1
done
redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null || { echo "ci-smoke: redis-server did not start" >&2; exit 1; }

OUT="$WORK/bench.jsonl"
started=$(date +%s)
"$HERE/run-bench.sh" --quick --port "$PORT" --out "$OUT" >/dev/null
echo "ci-smoke: harness ran in $(( $(date +%s) - started )) s"

# every line of the default modes must be there, each with a positive jobs_per_s median
node - "$OUT" <<'JS'
const fs = require('fs');
const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
const expected = ['add/sequential', 'add/inflight100', 'addBulk/chunk1000',
  ...['remove', 'keep'].flatMap(r => [1, 10, 100].map(c => `process/c${c}-${r}`)),
  'latency/c1-sequential', /^delayed\/spread5000ms-c10-hz\d+$/,
  'cost-addBulk/chunk1000', 'cost-process/c10-keep', 'cost-process/c10-remove', 'cost-add/sequential'];
let failed = 0;
for (const e of expected) {
  const l = lines.find(x => (e instanceof RegExp ? e.test(`${x.mode}/${x.variant}`) : `${x.mode}/${x.variant}` === e));
  const ok = l && l.schema === 'bullmq-bench/1' && l.impl === 'java-bull4j' && l.summary?.jobs_per_s?.median > 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${e}${l ? ` jobs_per_s=${l.summary?.jobs_per_s?.median}` : ' (missing)'}`);
  if (!ok) failed++;
}
console.log(`ci-smoke: ${expected.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
JS

# two interleaved pairs, the documented way (--close: each side one process asked for each run): both drivers run,
# the raw lines and the summary's ratio rows are written
started=$(date +%s)
IPORT="$(free_port)"
BENCH_SKIP_BUILD=1 "$HERE/interleave.sh" --port "$IPORT" --quick --close --pairs 2 --variants process/c10-keep \
  --n 1000 --out-dir "$WORK/interleave" >/dev/null
node - "$WORK/interleave" <<'JS'
const fs = require('fs');
const dir = process.argv[2];
const lines = fs.readFileSync(`${dir}/raw.jsonl`, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
const impls = lines.map(l => `${l.interleave.role}:${l.impl}`).sort().join(',');
const summary = fs.readFileSync(`${dir}/summary.md`, 'utf8');
const ok = impls === 'A:node-bullmq,A:node-bullmq,B:java-bull4j,B:java-bull4j'
  && lines.every(l => l.per_run[0].jobs_per_s > 0 && l.interleave.served)
  && /\| process\/c10-keep \| jobs\/s \|.*\*\*\d+\.\d\d\*\*/.test(summary);
console.log(`${ok ? 'ok  ' : 'FAIL'} interleaved pairs, served (${impls})`);
process.exit(ok ? 0 : 1);
JS
echo "ci-smoke: interleaved pairs ran in $(( $(date +%s) - started )) s"
