#!/usr/bin/env bash
# Builds the benchmarks jar and runs the warm and cold read benchmarks with short settings,
# writing JMH JSON and text output plus a summary table of ratios under benchmarks/results/.
#
#   benchmarks/run.sh                      # both benchmarks, short settings (~6 minutes on 2 cores)
#   SKIP_BUILD=1 benchmarks/run.sh         # reuse benchmarks/target/benchmarks.jar
#   JMH_ARGS="-p bufferSize=1048576" benchmarks/run.sh   # extra JMH options for both runs
#   ONLY=cold BANDWIDTH_MBPS=200 benchmarks/run.sh        # only the cold reads, 200 MB/s per GET
#
# Environment: BENCH_DIR (scratch files; default java.io.tmpdir), LATENCY_MS (first-byte latency of
# every S3 GET, default 20), BANDWIDTH_MBPS (per-GET bandwidth limit in MB/s, default 0 = unlimited).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
results="$here/results"
mkdir -p "$results"

if [[ -z "${SKIP_BUILD:-}" ]]; then
  (cd "$root" && ./mvnw -B -o -q package -pl benchmarks -am -DskipTests)
fi

jar="$here/target/benchmarks.jar"
props=(-Drubix.bench.latency.ms="${LATENCY_MS:-20}" -Drubix.bench.bandwidth.mbps="${BANDWIDTH_MBPS:-0}")
if [[ -n "${BENCH_DIR:-}" ]]; then
  props+=(-Drubix.bench.dir="$BENCH_DIR")
fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"

json=()
if [[ "${ONLY:-}" != cold ]]; then
  # Warm: 1 fork, 2 x 2 s warm-up, 3 x 3 s measurement per benchmark and checksum mode.
  java -jar "$jar" 'WarmReadBenchmark' -f 1 -wi 2 -w 2s -i 3 -r 3s \
    -jvmArgsAppend "${props[*]}" -rf json -rff "$results/warm-$stamp.json" ${JMH_ARGS:-} \
    | tee "$results/warm-$stamp.txt"
  json+=("$results/warm-$stamp.json")
fi
if [[ "${ONLY:-}" != warm ]]; then
  # Cold: 1 fork, 2 warm-up and 10 measured single-shot reads per reader and buffer size.
  java -jar "$jar" 'ColdReadBenchmark' -f 1 -wi 2 -i 10 \
    -jvmArgsAppend "${props[*]}" -rf json -rff "$results/cold-$stamp.json" ${JMH_ARGS:-} \
    | tee "$results/cold-$stamp.txt"
  json+=("$results/cold-$stamp.json")
fi

python3 "$here/summarize.py" "${json[@]}" | tee "$results/summary-$stamp.md"
