#!/bin/bash
cd /work/wt/observability
OUT=/tmp/obs-bench.jsonl
rm -f $OUT
export BENCH_SKIP_BUILD=0
first=1
for round in 1 2 3; do
  for v in off metrics micrometer; do
    case $v in off) X="";; metrics) X="--worker-metrics 10080";; micrometer) X="--micrometer";; esac
    if [ $first = 1 ]; then first=0; else export BENCH_SKIP_BUILD=1; fi
    echo "== round $round $v $(date +%T)" >&2
    src/bench/run-bench.sh --port 6397 --modes process --conc 10 --retention keep --runs 1 --n-process 20000 \
      --quiet-wait-s 0 --warmup-n 1000 --out $OUT $X > /dev/null
  done
done
echo done >&2
