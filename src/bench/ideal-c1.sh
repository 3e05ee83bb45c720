#!/usr/bin/env bash
# Issue 15's c=1 target against its bound: BullMQ 6.7.0's worker (A, driver.mjs), bull4j's worker (B, run-bench.sh)
# and the fastest client bull4j's scripts allow (I, io.bull4j.bench.IdealLoop: one thread, a plain blocking socket,
# one finish-and-fetch call per job, nothing else), all at concurrency 1 on process/c1-keep's jobs, one after the
# other per pair, on one Redis this script starts on --port and stops. --variant add does the same for
# add/sequential (I: one addJob call per add). The bench harness must be built (BENCH_SKIP_BUILD=1 as for
# interleave.sh; see docs/benchmarks.md, "Running it").
#
#   src/bench/ideal-c1.sh --port 6394 [--pairs 7] [--n 20000] [--variant c1|add] [--out FILE.jsonl]
#
# Prints each pair's jobs/s and the medians of the pair ratios B/A, I/A and B/I; the JSON lines go to --out.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
port="" pairs=7 n=20000 variant=c1 out="$ROOT/target/ideal-c1-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$port" ] || { echo "ideal-c1: --port is required (a free port; it starts its own Redis there)" >&2; exit 2; }
case "$variant" in c1 | add) ;; *) echo "ideal-c1: --variant is c1 or add, not $variant" >&2; exit 2 ;; esac
if redis-cli -p "$port" ping >/dev/null 2>&1; then
  echo "ideal-c1: port $port already answers PING; refusing to use a server this script did not start" >&2
  exit 1
fi
redis-server --port "$port" --save '' --appendonly no --daemonize no >/dev/null &
redis=$!
trap 'kill $redis 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
mkdir -p "$(dirname "$out")"
: > "$out"
cp="$ROOT/target/test-classes:$ROOT/target/classes:$(cat "$ROOT/target/bench-classpath.txt")"
rate() { node -e 'const l = require("fs").readFileSync(0, "utf8").trim().split("\n").filter((s) => s.startsWith("{"));
  const o = JSON.parse(l[l.length - 1]); console.log(Math.round(o.jobs_per_s ?? o.summary?.jobs_per_s?.median ?? NaN))'; }
for p in $(seq 1 "$pairs"); do
  redis-cli -p "$port" flushall sync >/dev/null
  if [ "$variant" = add ]; then
    a=$(node "$HERE/node/driver.mjs" --port "$port" --variant add/sequential --n "$n" 2>/dev/null | tee -a "$out" | rate)
    redis-cli -p "$port" flushall sync >/dev/null
    b=$(BENCH_SKIP_BUILD=1 "$HERE/run-bench.sh" --port "$port" --runs 1 --quiet-wait-s 0 --modes add --add-inflight 1 \
      --n-add "$n" 2>/dev/null | grep '^{' | tail -1 | tee -a "$out" | rate)
    i=$(java -cp "$cp" io.bull4j.bench.IdealLoop "$port" "$n" 1 add | tee -a "$out" | rate)
  else
    a=$(node "$HERE/node/driver.mjs" --port "$port" --variant process/c1-keep --n "$n" 2>/dev/null | tee -a "$out" | rate)
    redis-cli -p "$port" flushall sync >/dev/null
    b=$(BENCH_SKIP_BUILD=1 "$HERE/run-bench.sh" --port "$port" --runs 1 --quiet-wait-s 0 --modes process --conc 1 \
      --retention keep --n-process "$n" 2>/dev/null | grep '^{' | tail -1 | tee -a "$out" | rate)
    i=$(java -cp "$cp" io.bull4j.bench.IdealLoop "$port" "$n" 1 | tee -a "$out" | rate)
  fi
  echo "pair $p: jobs/s A (BullMQ) $a, B (bull4j) $b, I (ideal loop) $i"
  echo "$p $a $b $i" >> "$out.pairs"
done
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" ").map(Number));
const med = (xs) => { const s = [...xs].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const show = (name, f) => { const r = rows.map(f); console.log(`${name}: median ${med(r).toFixed(2)} (${Math.min(...r).toFixed(2)}-${Math.max(...r).toFixed(2)})`); };
show("B/A (bull4j / BullMQ)", ([, a, b]) => b / a);
show("I/A (ideal loop / BullMQ)", ([, a, , i]) => i / a);
show("B/I (bull4j / ideal loop)", ([, , b, i]) => b / i);' "$out.pairs"
rm -f "$out.pairs"
