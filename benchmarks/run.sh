#!/usr/bin/env bash
# Builds the benchmarks jar and runs the warm and cold read benchmarks with short settings,
# writing JMH JSON and text output plus a summary table of ratios under benchmarks/results/.
#
#   benchmarks/run.sh                      # both benchmarks, short settings (~6 minutes on 2 cores)
#   SKIP_BUILD=1 benchmarks/run.sh         # reuse benchmarks/target/benchmarks.jar
#   JMH_ARGS="-p bufferSize=1048576" benchmarks/run.sh   # extra JMH options for both runs
#   ONLY=cold BANDWIDTH_MBPS=200 benchmarks/run.sh        # only the cold reads, 200 MB/s per GET
#   ONLY=bookkeeper benchmarks/run.sh      # only the BookKeeper group: status RPC, metadata memory,
#                                          # warm reads daemon vs embedded (~4 minutes on 2 cores)
#
# ONLY=warm|cold|bookkeeper selects one group; without ONLY, warm and cold run (not bookkeeper).
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
only="${ONLY:-}"
if [[ -n "$only" && "$only" != warm && "$only" != cold && "$only" != bookkeeper ]]; then
  echo "ONLY must be warm, cold or bookkeeper, not '$only'" >&2
  exit 2
fi
if [[ "$only" == bookkeeper ]]; then
  # Status RPC: 1 fork, 2 x 2 s warm-up, 3 x 2 s measurement per thread count and mode.
  java -jar "$jar" 'BookKeeperStatusBenchmark' -f 1 -wi 2 -w 2s -i 3 -r 2s \
    -jvmArgsAppend "${props[*]}" -rf json -rff "$results/bookkeeper-status-$stamp.json" ${JMH_ARGS:-} \
    | tee "$results/bookkeeper-status-$stamp.txt"
  json+=("$results/bookkeeper-status-$stamp.json")
  # Metadata heap per block: its own JVM, fixed heap, not JMH (it measures bytes, not time).
  java -Xms2g -Xmx2g "${props[@]}" -cp "$jar" io.rubix.benchmarks.MetadataMemory \
    | tee "$results/bookkeeper-memory-$stamp.txt"
  # Warm 1 MiB reads, daemon vs embedded vs local: 1 fork, 2 x 2 s warm-up, 3 x 3 s measurement.
  java -jar "$jar" 'BookKeeperWarmReadBenchmark' -f 1 -wi 2 -w 2s -i 3 -r 3s \
    -jvmArgsAppend "${props[*]}" -rf json -rff "$results/bookkeeper-warm-$stamp.json" ${JMH_ARGS:-} \
    | tee "$results/bookkeeper-warm-$stamp.txt"
  json+=("$results/bookkeeper-warm-$stamp.json")
  { python3 "$here/summarize.py" "${json[@]}"; echo "### Metadata heap (InProcessMetadataService, MemoryMXBean after full GC)"; echo;
    grep -E '^\||^per object' "$results/bookkeeper-memory-$stamp.txt"; } | tee "$results/summary-bookkeeper-$stamp.md"
  exit 0
fi
if [[ "$only" != cold ]]; then
  # Warm: 1 fork, 2 x 2 s warm-up, 3 x 3 s measurement per benchmark and checksum mode.
  java -jar "$jar" 'WarmReadBenchmark' -f 1 -wi 2 -w 2s -i 3 -r 3s \
    -jvmArgsAppend "${props[*]}" -rf json -rff "$results/warm-$stamp.json" ${JMH_ARGS:-} \
    | tee "$results/warm-$stamp.txt"
  json+=("$results/warm-$stamp.json")
fi
if [[ "$only" != warm ]]; then
  # Cold: 1 fork, 2 warm-up and 10 measured single-shot reads per reader and buffer size.
  java -jar "$jar" 'ColdReadBenchmark' -f 1 -wi 2 -i 10 \
    -jvmArgsAppend "${props[*]}" -rf json -rff "$results/cold-$stamp.json" ${JMH_ARGS:-} \
    | tee "$results/cold-$stamp.txt"
  json+=("$results/cold-$stamp.json")
fi

python3 "$here/summarize.py" "${json[@]}" | tee "$results/summary-$stamp.md"
