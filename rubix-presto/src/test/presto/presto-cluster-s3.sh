#!/usr/bin/env bash
# Opt-in, not in CI: a real PrestoDB 0.287 cluster on this machine, each node its own JVM on its own loopback
# address: the coordinator on 127.0.0.1 (not scheduling work) and N workers (default 3) on 127.0.0.2...,
# reading external ORC tables on s3a:// through the rubix-presto jar, against the S3 server of the rubix-core
# tests (S3Proxy, own JVM, counts GETs and bytes). Each worker runs its node's BookKeeper inside its JVM
# (rubix.bookkeeper.embedded: Thrift, data-transfer port with a secret and /metrics on the worker's address);
# every node's RubiX asks the coordinator's /v1/node for the workers (rubix.cluster.manager=presto); the Hive
# catalog schedules each split only on the hosts its block locations name (hive.node-selection-strategy=
# HARD_AFFINITY), which RubiX answers with the split's owner. TPC-H sf1 lineitem (48 files) and orders (16),
# two queries per pass, each answer compared with the tpch connector's: direct (stock PrestoS3FileSystem),
# cold, warm, warm without affinity (NO_PREFERENCE, for comparison), then kill -9 of the last worker (its
# BookKeeper with it) and a pass on the survivors, and one more. Figures per pass (cluster_figures.py): what
# each worker's caching file systems read from its cache, peers and S3 (their JMX beans), its BookKeeper's
# /metrics, scan splits per worker from the coordinator's query info, the S3 server's counters; the last line
# is key=value pairs, a Markdown table before it. Docs and measured figures: docs/presto.md.
#
#   ./mvnw -B -q package -pl rubix-presto -am -DskipTests      # the jar, and rubix-core's test jar
#   ./mvnw -B -q dependency:get -Dartifact=com.facebook.presto:presto-server:0.287:tar.gz -Dtransitive=false
#   ./mvnw -B -q dependency:get -Dartifact=org.ow2.asm:asm-util:9.8        # with asm, asm-tree, asm-analysis
#   rubix-presto/src/test/presto/presto-cluster-s3.sh [workers] [work dir]
#   KILL_DURING_QUERY=1 rubix-presto/src/test/presto/presto-cluster-s3.sh   # the worker killed while Q1 runs
#
# JDK 17, python3, curl >= 7.75; memory: 1.5 GB of heap for the coordinator and 2 GB per worker. A run takes
# about 3 min on 2 shared cores (with one worker about 2); figures and what they mean: docs/presto.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
WORKERS=${1:-3}
WORK=${2:-$(mktemp -d /tmp/rubix-presto-cluster.XXXXXX)}
FIGURES="python3 $HERE/cluster_figures.py"
mkdir -p "$WORK"
cd "$WORK"
# shellcheck source=presto-common.sh
. "$HERE/presto-common.sh"
echo "work dir $WORK; $("$JAVA" -version 2>&1 | head -1); $WORKERS workers"
RUN_STARTED=$(date +%s)

# a port free on ADDRESS (0.0.0.0: on every address, for the ports every node uses)
free_port() { python3 -c 'import socket, sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1]); s.close()' "$1"; }

unpack_presto
rm -rf "$WORK"/cache-* "$WORK"/data-* "$WORK/metastore" "$WORK"/etc-* "$WORK"/*.log
mkdir -p "$WORK/metastore"

start_s3_server

# nodes: the coordinator on 127.0.0.1, worker i on 127.0.0.(i+1)
COORDINATOR=127.0.0.1
NODES=(coordinator)
declare -A ADDRESS=([coordinator]=$COORDINATOR) HTTP=() METRICS=()
for i in $(seq 1 "$WORKERS"); do NODES+=("worker$i"); ADDRESS[worker$i]=127.0.0.$((i + 1)); done
for node in "${NODES[@]}"; do HTTP[$node]=$(free_port "${ADDRESS[$node]}"); METRICS[$node]=$(free_port "${ADDRESS[$node]}"); done
CPORT=${HTTP[coordinator]}
COORDINATOR_URL=http://$COORDINATOR:$CPORT
# the same on every node: readers connect to this port of the owner's address
TRANSFER_PORT=$(free_port 0.0.0.0)
BOOKKEEPER_PORT=$(free_port 0.0.0.0)
SECRET=$(head -c 24 /dev/urandom | base64)

node_config() {
  local node=$1 heap=$2 address=${ADDRESS[$1]} etc=$WORK/etc-$1
  mkdir -p "$etc/catalog" "$WORK/cache-$node"
  cat > "$etc/node.properties" <<P
node.environment=rubix
node.id=$node
node.data-dir=$WORK/data-$node
node.bind-ip=$address
node.internal-address=$address
P
  jvm_config "$etc/jvm.config" "$heap"
  if [ "$node" = coordinator ]; then
    printf '%s\n' coordinator=true node-scheduler.include-coordinator=false discovery-server.enabled=true > "$etc/config.properties"
  else
    echo "coordinator=false" > "$etc/config.properties"
  fi
  cat >> "$etc/config.properties" <<P
http-server.http.port=${HTTP[$node]}
discovery.uri=http://$COORDINATOR:$CPORT
query.max-memory=2GB
query.max-memory-per-node=768MB
query.max-total-memory-per-node=1GB
P
  # a query whose worker died fails after these (default 5m of retries each) instead of hanging
  [ "${KILL_DURING_QUERY:-0}" = 1 ] && printf '%s\n' query.remote-task.max-error-duration=10s exchange.max-error-duration=10s >> "$etc/config.properties"
  common_catalogs "$etc"
  # through RubiX; a split runs only on the hosts its block locations name: its RubiX owner
  cat > "$etc/catalog/hive.properties" <<P
connector.name=hive-hadoop2
hive.metastore=file
hive.metastore.catalog.dir=file://$WORK/metastore
hive.s3-file-system-type=HADOOP_DEFAULT
hive.config.resources=$etc/core-site.xml
hive.node-selection-strategy=HARD_AFFINITY
P
  local bookkeeper=""
  if [ "$node" != coordinator ]; then
    # the node's BookKeeper inside the worker's JVM, every port on the worker's address
    bookkeeper="
  <property><name>rubix.bookkeeper.embedded</name><value>true</value></property>
  <property><name>rubix.cluster.node.id</name><value>$address</value></property>
  <property><name>rubix.network.bookkeeper.bind.address</name><value>$address</value></property>
  <property><name>rubix.network.bookkeeper.host</name><value>$address</value></property>
  <property><name>rubix.network.transfer.bind.address</name><value>$address</value></property>
  <property><name>rubix.bookkeeper.metrics.bind.address</name><value>$address</value></property>
  <property><name>rubix.bookkeeper.metrics.port</name><value>${METRICS[$node]}</value></property>
  <property><name>rubix.network.transfer.fetch.allowed.authorities</name><value>s3a://warehouse</value></property>
"
  else
    # plans only: learns a dead worker from probes, not from failed reads
    bookkeeper="
  <property><name>rubix.cluster.liveness.check.interval</name><value>5s</value></property>"
  fi
  cat > "$etc/core-site.xml" <<P
<configuration>
  <property><name>fs.s3a.impl</name><value>io.rubix.presto.CachingPrestoS3FileSystem</value></property>
  <property><name>rubix.cache.dirs</name><value>$WORK/cache-$node</value></property>
  <property><name>rubix.cluster.manager</name><value>presto</value></property>
  <property><name>rubix.cluster.presto.coordinator.url</name><value>http://$COORDINATOR:$CPORT</value></property>
  <property><name>rubix.cluster.presto.include-coordinator</name><value>false</value></property>
  <property><name>rubix.network.bookkeeper.server.port</name><value>$BOOKKEEPER_PORT</value></property>
  <property><name>rubix.network.transfer.server.port</name><value>$TRANSFER_PORT</value></property>
  <property><name>rubix.network.transfer.secret</name><value>$SECRET</value></property>$bookkeeper
$(presto_s3_properties)
</configuration>
P
}
node_config coordinator 1536M
for i in $(seq 1 "$WORKERS"); do node_config "worker$i" 2G; done

declare -A PIDS=()
start_node() {
  PATH="$(dirname "$(command -v "$JAVA")"):$PATH" python3 "$PRESTO/bin/launcher.py" --etc-dir "$WORK/etc-$1" \
    --data-dir "$WORK/data-$1" run > "$WORK/$1.log" 2>&1 &
  PIDS[$1]=$!
}
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  kill "$S3PID" 2>/dev/null || true
}
trap cleanup EXIT

live_workers() { local n=0; for node in "${!PIDS[@]}"; do [ "$node" = coordinator ] || n=$((n + 1)); done; echo "$n"; }
# polls, with a deadline, until the coordinator answers and schedules on exactly the live workers
await_cluster() {
  local want; want=$(live_workers)
  for _ in $(seq 1 600); do
    for node in "${!PIDS[@]}"; do
      kill -0 "${PIDS[$node]}" 2>/dev/null || { echo "$node exited; see $WORK/$node.log" >&2; exit 1; }
    done
    # the coordinator's count, not a query: a distributed one hangs on a worker killed but not yet dropped
    if [ "$(curl -s -H 'X-Presto-User: rubix' "$COORDINATOR_URL/v1/cluster" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["activeWorkers"])' 2>/dev/null)" = "$want" ] \
      && [ "$(sql "SELECT count(*) FROM tpch.tiny.region" 2>/dev/null)" = 5 ]; then return 0; fi
    sleep 0.5
  done
  echo "the cluster did not come up with $want workers; see $WORK/*.log" >&2; exit 1
}
worker_metrics() { for node in "${!PIDS[@]}"; do [ "$node" = coordinator ] || echo "${ADDRESS[$node]}:${HTTP[$node]}:${METRICS[$node]}"; done; }

started=$(date +%s%N); started=$((started / 1000000))
for node in "${NODES[@]}"; do start_node "$node"; done
await_cluster
echo "coordinator and $WORKERS workers up in $(elapsed "$started") ms"
echo "coordinator /v1/node: $(curl -s -H 'X-Presto-User: rubix' "$COORDINATOR_URL/v1/node")"

# TPC-H sf1 as ORC, written by PrestoDB into managed tables on local disk, copied to S3 and declared there as
# external tables (the file metastore creates none on S3). Bucketed only to get many files of a few MB
# (one split each, under S3Proxy's 32 MB PUT limit) spread over the owners; the S3 tables are not bucketed.
tpch_table_on_s3 lineitem partkey 48
tpch_table_on_s3 orders custkey 16
TABLE_BYTES=$(s3_table_bytes)
echo "ORC on S3: $TABLE_BYTES bytes in $(find "$WORK/s3/warehouse/tpch" -type f | wc -l) objects"

EXPECTED1=$(sql "$(query 1 tpch.sf1)")
EXPECTED2=$(sql "$(query 2 tpch.sf1)")

LINES=$WORK/figures.txt
: > "$LINES"
# one pass: both queries on SCHEMA, answers checked; its figures as key=value pairs prefixed by NAME
scan() {
  local name=$1 schema=$2 ids=() ms=()
  $FIGURES scrape "$WORK/before-$name.json" $(worker_metrics)
  reset
  for q in 1 2; do
    local result expected
    result=$(sql "$(query $q "$schema")")
    expected=$([ $q = 1 ] && echo "$EXPECTED1" || echo "$EXPECTED2")
    [ "$result" = "$expected" ] || { echo "$name Q$q: answer differs: $result" >&2; exit 1; }
    ids+=("$(cat "$WORK/query-id")")
    ms+=("$(cat "$WORK/time")")
  done
  local s3 infos=(); s3=$(counters)
  for id in "${ids[@]}"; do
    infos+=("$WORK/query-$name-$id.json")
    curl -s -H 'X-Presto-User: rubix' "$COORDINATOR_URL/v1/query/$id" > "${infos[-1]}"
  done
  $FIGURES splits "${infos[@]}" > "$WORK/splits-$name.json"
  $FIGURES scrape "$WORK/after-$name.json" $(worker_metrics)
  local line
  line="${name}Ms=${ms[0]}+${ms[1]} ${name}Answers=equal $($FIGURES pass "$name" "$WORK/before-$name.json" "$WORK/after-$name.json" "$WORK/splits-$name.json" "$s3")"
  echo "$line" | tee -a "$LINES"
}

# each node's io.rubix:type=ClusterMembership bean, through airlift's JMX HTTP resource
membership() {
  for node in "${!PIDS[@]}"; do
    curl -s "http://${ADDRESS[$node]}:${HTTP[$node]}/v1/jmx/mbean" | python3 -c '
import json, sys
for bean in json.load(sys.stdin):
    if bean["objectName"].startswith("io.rubix:") and "type=ClusterMembership" in bean["objectName"]:
        values = {a["name"]: a.get("value") for a in bean["attributes"]}
        print(sys.argv[1], {k: values.get(k) for k in ("Manager", "Nodes", "LocalNode", "NodeCount", "DownNodes", "ViewVersion", "ConsecutiveFailures")})
' "$node" || echo "$node: no answer from /v1/jmx/mbean"
  done | sort
}
# polls, with a deadline, until every live node's RubiX view holds exactly the live workers
await_views() {
  local want; want=$(live_workers)
  for _ in $(seq 1 300); do
    local views; views=$(membership)
    if [ "$(grep -c "'NodeCount': $want," <<< "$views")" -ge "$(( want + 1 ))" ] && ! grep -qv "'NodeCount': $want," <<< "$views"; then
      echo "$views"; return 0
    fi
    sleep 0.5
  done
  echo "RubiX's views did not settle on $want workers:" >&2; membership >&2; exit 1
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
scan direct hive_direct.s3direct
scan cold hive.s3
echo "RubiX cluster membership (each node's /v1/jmx/mbean):"
await_views | tee "$WORK/membership.txt"
scan warm hive.s3
SESSION="hive.node_selection_strategy=NO_PREFERENCE" scan noAffinity hive.s3

# kill -9 of the last worker, its BookKeeper with it (same JVM), between passes, or with KILL_DURING_QUERY=1
# while Q1 runs (PrestoDB 0.287 retries no task: that query fails, and is run again in the next pass); not
# with one worker
LOST=worker$WORKERS LOST_CACHED=0 DURING_FIGURES=""
if [ "$WORKERS" -gt 1 ]; then
  LOST_CACHED=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))[sys.argv[2]]["rubix_cache_used_bytes"]))' \
    "$WORK/after-noAffinity.json" "${ADDRESS[$LOST]}")
  if [ "${KILL_DURING_QUERY:-0}" = 1 ]; then
    reset
    rm -f "$WORK/query-id"
    ( sql "$(query 1 hive.s3)" > "$WORK/during.out" 2> "$WORK/during.err" && echo 0 > "$WORK/during.rc" || echo 1 > "$WORK/during.rc" ) &
    DURING=$!
    # until the query has finished a split: the worker dies with the scan under way
    for _ in $(seq 1 600); do
      [ -s "$WORK/query-id" ] && curl -s -H 'X-Presto-User: rubix' "$COORDINATOR_URL/v1/query/$(cat "$WORK/query-id")" \
        | python3 -c 'import json, sys; s = json.load(sys.stdin)["queryStats"]; sys.exit(0 if s["completedDrivers"] > 0 else 1)' 2>/dev/null && break
      sleep 0.1
    done
  fi
  kill -9 "${PIDS[$LOST]}"
  wait "${PIDS[$LOST]}" 2>/dev/null || true
  unset "PIDS[$LOST]"
  if [ "${KILL_DURING_QUERY:-0}" = 1 ]; then
    wait "$DURING" || true
    DURING_S3=$(counters)
    if [ "$(cat "$WORK/during.rc")" = 0 ]; then
      [ "$(cat "$WORK/during.out")" = "$EXPECTED1" ] || { echo "Q1 during the kill: answer differs" >&2; exit 1; }
      DURING_RESULT=equal
    else
      DURING_RESULT=failed
      echo "Q1 during the kill failed: $(head -1 "$WORK/during.err")"
    fi
    DURING_FIGURES="duringKillQ1=$DURING_RESULT duringKillS3=$(tr ' ' ',' <<< "${DURING_S3% }") "
    echo "$DURING_FIGURES"
  fi
  started=$(date +%s%N); started=$((started / 1000000))
  await_cluster
  await_views > "$WORK/membership-after-kill.txt"
  echo "killed $LOST (${ADDRESS[$LOST]}, $LOST_CACHED bytes cached); coordinator and RubiX views without it after $(elapsed "$started") ms"
  cat "$WORK/membership-after-kill.txt"
  scan lost hive.s3
  scan afterLoss hive.s3
fi

for node in "${!PIDS[@]}"; do kill "${PIDS[$node]}"; done
for node in "${!PIDS[@]}"; do wait "${PIDS[$node]}" 2>/dev/null || true; done
PIDS=()
exec 3>&-
wait "$S3PID" || true
grep -h 'BookKeeper inside\|io.rubix.*WARN\|WARN.*io.rubix' "$WORK"/worker*.log | cut -c1-300 | sort | uniq -c | head -20 || true

LOST_S3=$(grep -o 'lostS3Bytes=[0-9]*' "$LINES" | cut -d= -f2 || echo 0)
RUN_SECONDS=$(( $(date +%s) - RUN_STARTED ))
echo "| pass | Q1 + Q2 ms | GETs | HEADs | bytes from S3 | from the node's own cache | from peers | from S3 | splits per worker | cached per worker | max/mean |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|"
python3 - "$LINES" <<'PY'
import sys
for line in open(sys.argv[1]):
    kv = dict(f.split("=", 1) for f in line.split())
    name = next(iter(kv))[:-2]
    g = lambda k: kv.get(name + k, "")
    print(f"| {name} | {g('Ms')} | {g('Gets')} | {g('Heads')} | {int(g('S3Bytes')):,} | {g('HitShare')} | {g('PeerShare')} | {g('S3Share')} | {g('Splits')} | {g('Cached')} | {g('CachedMaxOverMean')} |")
PY
LOST_FIGURES=""
if [ "$WORKERS" -gt 1 ]; then
  DURING_S3_BYTES=$(grep -o 'bytes=[0-9]*' <<< "${DURING_S3:-bytes=0}" | cut -d= -f2)
  LOST_FIGURES="lostNode=${ADDRESS[$LOST]} lostCachedBytes=$LOST_CACHED ${DURING_FIGURES}lostRefetchRatio=$(python3 -c \
    "import sys; print(f'{(int(sys.argv[1]) + int(sys.argv[2])) / int(sys.argv[3]):.3f}')" "$DURING_S3_BYTES" "$LOST_S3" "$LOST_CACHED") "
fi
echo "presto-cluster: workers=$WORKERS tableBytes=$TABLE_BYTES ${LOST_FIGURES}runSeconds=$RUN_SECONDS $(tr '\n' ' ' < "$LINES")"
