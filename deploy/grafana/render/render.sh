#!/usr/bin/env bash
# Opt-in, not in CI: draws docs/images/dashboard.png from real metrics. Starts a BookKeeper (BookKeeperMain from
# the distribution, free ports), the S3 server of the rubix-core tests (own JVM, 16 MB/s and 20 ms to first
# byte, like a remote store), a Prometheus (Debian's 2.42) scraping the daemon's /metrics every 2 s, and a
# read workload (RenderWorkload.java) through CachingS3AFileSystem in daemon mode whose JVMs report their
# counters every 2 s: cold then warm reads of 64 MiB, then 96 MiB more into a 128 MiB cache (evictions),
# a kill -9 and restart of the BookKeeper on the same ports (journal recovery), then both sets again.
# Then render.mjs evaluates every panel of deploy/grafana/rubix-bookkeeper.json through Prometheus'
# query_range and draws them in headless Chromium. The result is the dashboard's queries on real data,
# not a Grafana screenshot.
#
#   ./mvnw -B package -pl rubix-bookkeeper -am -DskipTests     # the distribution and rubix-core's test jar
#   apt-get install -y prometheus chromium                      # as root
#   deploy/grafana/render/render.sh [OUT.png] [WORK_DIR]        # default docs/images/dashboard.png
#
# Needs JDK 17 (java on PATH, or JAVA_HOME), node and npm (npm ci here: playwright-core and uPlot, 2 packages,
# 6.7 MB), python3 and curl. M2 names the Maven repository with s3proxy-4.1.0-jar-with-dependencies.jar
# (default ~/.m2/repository); RUBIX_DIST and RUBIX_CORE_TESTS name another distribution and test jar. Measured here:
# 171 s in all, of which 144 s of metrics (docs/deploy.md, Dashboard).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
OUT=$(realpath -m "${1:-$ROOT/docs/images/dashboard.png}")
WORK=${2:-$(mktemp -d /tmp/rubix-dashboard.XXXXXX)}
M2=${M2:-$HOME/.m2/repository}
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
DIST=${RUBIX_DIST:-$(ls -d "$ROOT"/rubix-bookkeeper/target/rubix-*/ 2>/dev/null | head -1)}
TESTS=${RUBIX_CORE_TESTS:-$(ls "$ROOT"/rubix-core/target/rubix-core-*-tests.jar 2>/dev/null | head -1)}
S3PROXY=$M2/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar
[ -f "$S3PROXY" ] || S3PROXY=$HOME/.m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar
for f in "$DIST/lib" "$TESTS" "$S3PROXY" /usr/bin/prometheus /usr/bin/chromium; do
  [ -e "$f" ] || { echo "missing $f (see the header of $0)" >&2; exit 1; }
done
mkdir -p "$WORK" "$(dirname "$OUT")"
cd "$WORK"
echo "work dir $WORK"
began=$SECONDS
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
await() {  # await DESCRIPTION COMMAND...: polls COMMAND every 0.2 s for up to 60 s
  local what=$1; shift
  for _ in $(seq 1 300); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "timed out waiting for $what" >&2; exit 1
}

(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)

# the S3 server; it exits when its stdin closes
rm -f s3in; mkfifo s3in
"$JAVA" -cp "$S3PROXY:$TESTS" io.rubix.testing.S3ServerMain --dir "$WORK/s3" --bucket demo < s3in > s3server.out 2> s3server.log &
PIDS+=($!)
exec 3> s3in
await "the S3 server" grep -q '^S3SERVER' s3server.out
ENDPOINT=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\1/p' s3server.out)
CONTROL=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\2/p' s3server.out)
workload() { "$JAVA" -Xmx512m -Drubix.root.logger=WARN,console -cp "$DIST/lib/*" "$HERE/RenderWorkload.java" "$@"; }
workload upload "$ENDPOINT"
curl -sf -X POST "$CONTROL/settings?latencyMs=20&bandwidth=16m" >/dev/null

# the BookKeeper on free ports, chosen once so that a restart comes back where engines and Prometheus look
PORT=$(free_port); METRICS=$(free_port); TRANSFER=$(free_port)
CACHE=$WORK/cache
mkdir -p "$CACHE"
bookkeeper() {
  "$JAVA" -Xmx512m -Drubix.root.logger=INFO,console -cp "$DIST/conf:$DIST/lib/*" io.rubix.bookkeeper.BookKeeperMain \
    -Drubix.cache.dirs="$CACHE" -Drubix.cache.max.size=128m -Drubix.cluster.node.id=render \
    -Drubix.network.bookkeeper.server.port="$PORT" -Drubix.bookkeeper.metrics.port="$METRICS" \
    -Drubix.network.transfer.server.port="$TRANSFER" >> bookkeeper.log 2>&1 &
  BK=$!
  PIDS+=($BK)
  await "the BookKeeper" curl -sf "http://127.0.0.1:$METRICS/metrics"
}
bookkeeper

PROM_PORT=$(free_port)
cat > prometheus.yml <<P
global: { scrape_interval: 2s, evaluation_interval: 2s }
scrape_configs:
  - job_name: rubix-bookkeeper
    static_configs: [ { targets: ["127.0.0.1:$METRICS"] } ]
P
/usr/bin/prometheus --config.file=prometheus.yml --storage.tsdb.path="$WORK/prometheus" \
  --web.listen-address="127.0.0.1:$PROM_PORT" > prometheus.log 2>&1 &
PIDS+=($!)
await "Prometheus" curl -sf "http://127.0.0.1:$PROM_PORT/-/ready"
START=$(date +%s)
sleep 10   # a baseline before the first read: the charts start at zero

echo "$(date -u +%T) cold, then warm: objects 0-15 (64 MiB)"
workload read "$ENDPOINT" "$CACHE" "$PORT" 0 16 35
echo "$(date -u +%T) 96 MiB more into a 128 MiB cache: objects 16-39, evictions"
workload read "$ENDPOINT" "$CACHE" "$PORT" 16 24 35
echo "$(date -u +%T) kill -9 of the BookKeeper, restart on the same ports and cache"
kill -9 "$BK"
wait "$BK" 2>/dev/null || true
sleep 6    # down for three scrapes, as a crashed daemon would be
bookkeeper
echo "$(date -u +%T) after the restart: objects 0-39, partly evicted"
workload read "$ENDPOINT" "$CACHE" "$PORT" 0 40 35
sleep 10   # the last reports and scrapes
END=$(date +%s)
curl -s "http://127.0.0.1:$METRICS/metrics" | grep -E '^rubix_(engines_cache_hit_bytes_total|engines_cache_miss_bytes_total|cache_evictions_total|cache_recovered_blocks|cache_used_bytes) ' || true
echo "$(date -u +%T) workload done after $((SECONDS - began)) s; rendering $((END - START)) s of metrics"
node "$HERE/render.mjs" --prometheus "http://127.0.0.1:$PROM_PORT" --start "$START" --end "$END" --scrape 2 \
  --dashboard "$ROOT/deploy/grafana/rubix-bookkeeper.json" --out "$OUT" --html "$WORK/dashboard.html"
echo "$OUT: $(stat -c %s "$OUT") bytes; $((SECONDS - began)) s in all"
