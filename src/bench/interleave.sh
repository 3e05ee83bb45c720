#!/usr/bin/env bash
# The interleaved side-by-side benchmark: BullMQ 6.7.0 (src/bench/node/driver.mjs) and bull4j (run-bench.sh) run
# alternately, one variant and one measured run at a time, on one throwaway Redis flushed between runs
# (docs/benchmarks.md, "Interleaved comparison"). Starts redis-server on --port itself and always stops it.
#
# Usage: src/bench/interleave.sh --port 6390 [--pairs 5] [--variants process/c10-keep,add/sequential]
#                                [--n 50000] [--out-dir DIR] [--baseline DIR --baseline-label NAME] [--quick] [--close]
#   issue 10's variants: schedulers/n<N>-c<C>[-remove] [--duration-s 60 --warmup-s 5], limiter/max<M>-c<C> [--windows 10]
#   issue 11's variants: flows/add-1x10[-inflight<K>], flows/process-1x10-c10 [--flows 1000]
#   issue 15's variants: latency/c1-sequential [--n-latency 2000], delayed/bulk<N> (e.g. delayed/bulk10000)
#   --baseline DIR: another bull4j checkout whose harness is built (target/bench-classpath.txt, test-classes);
#   it runs as the third member of every pair. --close: each role is one process per variant, warmed once and
#   asked for each run (run-bench.sh and driver.mjs --serve; a baseline's harness must have it), so that a pair's
#   measured windows are seconds apart. env BENCH_SKIP_BUILD=1 skips this tree's Maven build.
# Writes DIR/raw.jsonl and DIR/summary.md (default DIR: target/interleave-<UTC>); prints the summary.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PORT=""
OUT_DIR=""
ARGS=("$@")
for ((i = 0; i < ${#ARGS[@]}; i++)); do
  case "${ARGS[$i]}" in
    --port) PORT="${ARGS[$((i + 1))]}" ;;
    --out-dir) OUT_DIR="${ARGS[$((i + 1))]}" ;;
  esac
done
[[ -n "$PORT" ]] || { echo "interleave: --port is required (a free port; it starts its own Redis there)" >&2; exit 1; }
if [[ -z "$OUT_DIR" ]]; then
  OUT_DIR="$ROOT/target/interleave-$(date -u +%Y%m%dT%H%M%SZ)"
  ARGS+=(--out-dir "$OUT_DIR")
fi
command -v redis-server >/dev/null || { echo "interleave: redis-server is not on PATH" >&2; exit 1; }
if redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1; then
  echo "interleave: port $PORT already answers PING; refusing to use a server this script did not start" >&2
  exit 1
fi
if [[ ! -d "$HERE/node/node_modules/bullmq" ]]; then
  (cd "$HERE/node" && npm ci --no-audit --no-fund) >&2
fi
if [[ "${BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  (cd "$ROOT" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$ROOT/target/bench-classpath.txt" \
    -Dmdep.includeScope=test && mvn -q -B test-compile) >&2
fi
mkdir -p "$OUT_DIR"
REDIS_DIR="$(mktemp -d /tmp/bull4j-interleave.XXXXXX)"
REDIS_PID=""
cleanup() {
  if [[ -n "$REDIS_PID" ]]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
  fi
  rm -rf "$REDIS_DIR"
}
trap cleanup EXIT
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$REDIS_DIR" \
  --logfile "$REDIS_DIR/redis.log" &
REDIS_PID=$!
for _ in $(seq 1 50); do
  redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null 2>&1 && break
  sleep 0.1
done
redis-cli -h 127.0.0.1 -p "$PORT" ping >/dev/null || { echo "interleave: redis-server did not start" >&2; exit 1; }
node "$HERE/interleave.mjs" "${ARGS[@]}"
echo "interleave: raw lines in $OUT_DIR/raw.jsonl, summary in $OUT_DIR/summary.md" >&2
