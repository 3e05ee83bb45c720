#!/usr/bin/env bash
# Context switches per processed job, by thread group, of a bull4j worker under load (Linux only).
#
# Runs `run-bench.sh --modes process` with 200,000 jobs on a Redis that must already run on --port, waits until
# 40,000 jobs are completed (the measured pass, after the warm-ups), then reads every JVM thread's voluntary and
# involuntary context switches from /proc twice, 3 s apart, and divides by the jobs completed meanwhile. Thread
# names are cut at 15 characters by the kernel and grouped without their trailing numbers: `bull4j-bench-pr` is
# the processor threads, `bull4j-events-b` the listener thread, `lettuce-epollEv` Lettuce's I/O thread.
#
#   src/bench/thread-switches.sh --port 6391 --conc 100 [--retention keep|remove] [--dir /other/tree]
#
# --dir runs another checkout's harness (built as for interleave.sh's --baseline), to compare two versions.
set -euo pipefail

port=6391 conc=10 retention=keep dir="$(cd "$(dirname "$0")/../.." && pwd)"
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --conc) conc=$2; shift 2 ;;
    --retention) retention=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

completed() { redis-cli -p "$port" zcard bull:bench-proc:completed 2>/dev/null || echo 0; }

(cd "$dir" && BENCH_SKIP_BUILD="${BENCH_SKIP_BUILD:-1}" src/bench/run-bench.sh --port "$port" --modes process \
  --conc "$conc" --retention "$retention" --runs 1 --quiet-wait-s 0 --n-process 200000 --jit-warmup-n 2000 \
  > /dev/null 2>&1) &
bench=$!
trap 'kill $bench 2>/dev/null || true' EXIT

for _ in $(seq 1 1200); do
  [ "$(completed)" -gt 40000 ] && break
  sleep 0.1
done
pid=$(pgrep -f 'io.bull4j.bench.BenchMain' | head -1)
[ -n "$pid" ] || { echo "no benchmark JVM found" >&2; exit 1; }

# one line per thread group: name, voluntary switches, involuntary switches
snapshot() {
  for t in /proc/"$pid"/task/*; do
    name=$(sed 's/-[0-9]*$//; s/[0-9]*$//' "$t/comm" 2>/dev/null) || continue
    awk -v n="$name" '/^voluntary_ctxt_switches/ {v = $2} /^nonvoluntary_ctxt_switches/ {i = $2}
      END {print n, v + 0, i + 0}' "$t/status" 2>/dev/null || true
  done | awk '{v[$1] += $2; i[$1] += $3} END {for (k in v) print k, v[k], i[k]}' | sort
}

before=$(snapshot); c1=$(completed); cpu1=$(awk '{print $14 + $15}' /proc/"$pid"/stat)
sleep 3
after=$(snapshot); c2=$(completed); cpu2=$(awk '{print $14 + $15}' /proc/"$pid"/stat)
jobs=$((c2 - c1))
ticks=$(getconf CLK_TCK)
echo "concurrency $conc, $retention: $((jobs / 3)) jobs/s, JVM CPU $(awk -v d=$((cpu2 - cpu1)) -v j=$jobs -v t="$ticks" \
  'BEGIN {printf "%.1f", d * 1e6 / t / j}') us/job"
printf '  %-18s %12s %12s\n' "threads" "voluntary" "involuntary"
join <(echo "$before") <(echo "$after") | awk -v j=$jobs '{v = ($4 - $2) / j; i = ($5 - $3) / j;
  if (v + i >= 0.005) printf "  %-18s %12.2f %12.2f\n", $1, v, i}'
wait $bench
trap - EXIT
