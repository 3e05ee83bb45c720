#!/usr/bin/env bash
# bull4j's benchmark harness (docs/benchmarks.md). Builds the test classpath, then runs
# io.bull4j.bench.BenchMain in a JVM of its own (never inside Maven's), passing every argument through.
#
# Usage: src/bench/run-bench.sh [--port 6390] [--runs 3] [--modes add,addBulk,process,latency,delayed,cost]
#                               [--out results.jsonl] [--quick] [... see BenchConfig / docs/benchmarks.md]
#   env: BENCH_PORT, BENCH_RUNS, BENCH_OUT stand in for absent --port/--runs/--out (run-node-anchors.sh's
#        EXTRA_BENCH sets them); BENCH_SKIP_BUILD=1 reuses target/ as it is; BENCH_JAVA_OPTS replaces the JVM
#        flags below.
# stdout carries only the JSON result lines; Maven's and the harness's progress go to stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CP_FILE="$ROOT/target/bench-classpath.txt"
# Maven runs in the repository; the harness runs in the caller's directory, so a relative --out means what it says
if [[ "${BENCH_SKIP_BUILD:-0}" != 1 || ! -s "$CP_FILE" ]]; then
  (cd "$ROOT" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$CP_FILE" -Dmdep.includeScope=test \
    && mvn -q -B test-compile) >&2
fi
# JVM flags:
#  -Xms1g -Xmx1g    a fixed heap: no resizing in the middle of a measured window, the same heap in every run;
#                   ample for the harness (its largest arrays hold 100k doubles) and for bull4j at any depth
#  -XX:+UseG1GC     the JDK 17 default on a 2-core box with this much memory, stated so that it cannot change
#                   with ergonomics (with < 2 cores or < 1792 MB the JVM would silently pick SerialGC)
#  -Dorg.slf4j...   slf4j-simple (test scope) at warn: the library's INFO lines stay off stderr
JAVA_OPTS_DEFAULT=(-Xms1g -Xmx1g -XX:+UseG1GC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
if [[ -n "${BENCH_JAVA_OPTS:-}" ]]; then
  read -r -a JAVA_OPTS_USED <<<"$BENCH_JAVA_OPTS"
else
  JAVA_OPTS_USED=("${JAVA_OPTS_DEFAULT[@]}")
fi
exec java "${JAVA_OPTS_USED[@]}" -cp "$ROOT/target/classes:$ROOT/target/test-classes:$(cat "$CP_FILE")" \
  io.bull4j.bench.BenchMain "$@"
