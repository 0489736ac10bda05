#!/usr/bin/env bash
# Opt-in, not in CI: real PrestoDB 0.287 (server tarball from Maven Central, 2.08 GB) reading external ORC
# tables on s3a:// through the rubix-presto jar (CachingPrestoS3FileSystem wrapping PrestoDB's own
# PrestoS3FileSystem), against the S3 server of the rubix-core tests (S3Proxy, own JVM, counts GETs and
# bytes). A coordinator and one worker; TPC-H sf1 lineitem and orders written as ORC by PrestoDB into a
# local table, copied to S3, read through an external table. Two queries, each answer compared with the
# tpch connector's: uncached (stock PrestoDB: hive.s3-file-system-type=PRESTO), cold, warm, and warm after
# restarting the worker. The `presto` cluster manager of the worker and the coordinator asks the coordinator's
# /v1/node; its JMX bean is read back through PrestoDB's jmx connector.
#
#   ./mvnw -B -q package -pl rubix-presto -am -DskipTests      # the jar, and rubix-core's test jar
#   ./mvnw -B -q dependency:get -Dartifact=com.facebook.presto:presto-server:0.287:tar.gz -Dtransitive=false
#   ./mvnw -B -q dependency:get -Dartifact=org.ow2.asm:asm-util:9.8        # with asm, asm-tree, asm-analysis
#   rubix-presto/src/test/presto/presto-orc-s3.sh [work dir]
#
# JDK 17 (java on PATH, or JAVA_HOME); PrestoDB 0.287 starts on it only with its ASM 9.0 jars replaced by 9.8.
# Also python3 and curl >= 7.75 (--aws-sigv4). M2 names the Maven repository (default ~/.m2/repository).
# Measured here (2 shared cores): the tarball downloads in ~14 s, unpacks in ~16 s, a run takes ~5 min;
# results in docs/presto.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
WORK=${1:-$(mktemp -d /tmp/rubix-presto.XXXXXX)}
mkdir -p "$WORK"
cd "$WORK"
# shellcheck source=presto-common.sh
. "$HERE/presto-common.sh"
echo "work dir $WORK; $("$JAVA" -version 2>&1 | head -1)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

unpack_presto
rm -rf "$WORK/cache-coordinator" "$WORK/cache-worker" "$WORK/metastore"   # an empty cache (and store, below)
mkdir -p "$WORK/cache-coordinator" "$WORK/cache-worker" "$WORK/metastore"

start_s3_server

CPORT=$(free_port)
WPORT=$(free_port)
COORDINATOR_URL=http://127.0.0.1:$CPORT

# one etc directory per node: the same catalogs, its own node id, port and cache directory
node_config() {
  local node=$1 port=$2 etc=$WORK/etc-$1
  mkdir -p "$etc/catalog"
  cat > "$etc/node.properties" <<P
node.environment=rubix
node.id=$node
node.data-dir=$WORK/data-$node
node.internal-address=127.0.0.1
P
  jvm_config "$etc/jvm.config" "$3"
  if [ "$node" = coordinator ]; then
    cat > "$etc/config.properties" <<P
coordinator=true
node-scheduler.include-coordinator=false
discovery-server.enabled=true
P
  else
    echo "coordinator=false" > "$etc/config.properties"
  fi
  cat >> "$etc/config.properties" <<P
http-server.http.port=$port
discovery.uri=http://127.0.0.1:$CPORT
query.max-memory=1GB
query.max-memory-per-node=768MB
query.max-total-memory-per-node=1GB
P
  common_catalogs "$etc"
  # through RubiX: the file systems named in core-site.xml
  cat > "$etc/catalog/hive.properties" <<P
connector.name=hive-hadoop2
hive.metastore=file
hive.metastore.catalog.dir=file://$WORK/metastore
hive.s3-file-system-type=HADOOP_DEFAULT
hive.config.resources=$etc/core-site.xml
P
  cat > "$etc/core-site.xml" <<P
<configuration>
  <property><name>fs.s3a.impl</name><value>io.rubix.presto.CachingPrestoS3FileSystem</value></property>
  <property><name>rubix.cache.dirs</name><value>$WORK/cache-$node</value></property>
  <property><name>rubix.cluster.manager</name><value>presto</value></property>
  <property><name>rubix.cluster.presto.coordinator.url</name><value>http://127.0.0.1:$CPORT</value></property>
  <property><name>rubix.cluster.presto.include-coordinator</name><value>false</value></property>
  <!-- both nodes are 127.0.0.1 here: the coordinator takes another id so that it is not taken for the worker -->
  $([ "$node" = coordinator ] && echo "<property><name>rubix.cluster.node.id</name><value>coordinator</value></property>")
$(presto_s3_properties)
</configuration>
P
}
node_config coordinator "$CPORT" 2G
node_config worker "$WPORT" 3G

declare -A PIDS=()
start_node() {
  local node=$1 log=$WORK/$1-$2.log
  PATH="$(dirname "$(command -v "$JAVA")"):$PATH" python3 "$PRESTO/bin/launcher.py" --etc-dir "$WORK/etc-$node" \
    --data-dir "$WORK/data-$node" run > "$log" 2>&1 &
  PIDS[$node]=$!
}
stop_node() { kill "${PIDS[$1]}"; wait "${PIDS[$1]}" || true; unset "PIDS[$1]"; }
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  kill "$S3PID" 2>/dev/null || true
}
trap cleanup EXIT

await_coordinator() {
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$CPORT/v1/info" | grep -q '"starting":false' && return 0
    kill -0 "${PIDS[coordinator]}" 2>/dev/null || { echo "coordinator exited; see $WORK/coordinator-*.log" >&2; exit 1; }
    sleep 0.5
  done
  echo "the coordinator did not start; see $WORK/coordinator-*.log" >&2; exit 1
}
await_worker() {
  for _ in $(seq 1 480); do
    kill -0 "${PIDS[worker]}" 2>/dev/null || { echo "worker exited; see $WORK/worker-*.log" >&2; exit 1; }
    # the worker must be active and have announced its catalogs before queries can be scheduled on it
    if [ "$(sql "SELECT count(*) FROM system.runtime.nodes WHERE coordinator = false AND state = 'active'" 2>/dev/null)" = 1 ] \
      && [ "$(sql "SELECT count(*) FROM tpch.tiny.region" 2>/dev/null)" = 5 ]; then return 0; fi
    sleep 0.5
  done
  echo "no active worker; see $WORK/worker-*.log" >&2; exit 1
}
started=$(date +%s%N); started=$((started / 1000000))
start_node coordinator 1
start_node worker 1
await_coordinator
await_worker
echo "coordinator and worker up in $(elapsed "$started") ms"

# TPC-H sf1 as ORC on S3 (lineitem in 16 files, orders in 4)
tpch_table_on_s3 lineitem orderkey 16
tpch_table_on_s3 orders orderkey 4
echo "ORC on S3: $(s3_table_bytes) bytes in $(find "$WORK/s3/warehouse/tpch" -type f | wc -l) objects"

EXPECTED1=$(sql "$(query 1 tpch.sf1)")
EXPECTED2=$(sql "$(query 2 tpch.sf1)")
echo "expected: $EXPECTED1"
echo "$EXPECTED2"

RESULTS=$WORK/results.tsv
printf 'run\tquery\tms\tcounters\n' > "$RESULTS"
scan() {
  local run=$1 schema=$2
  for q in 1 2; do
    reset
    RESULT=$(sql "$(query $q "$schema")")
    local expected; expected=$([ $q = 1 ] && echo "$EXPECTED1" || echo "$EXPECTED2")
    [ "$RESULT" = "$expected" ] || { echo "$run Q$q: answer differs: $RESULT" >&2; exit 1; }
    printf '%s\tQ%s\t%s\t%s\n' "$run" "$q" "$(cat "$WORK/time")" "$(counters)" | tee -a "$RESULTS"
  done
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
scan direct hive_direct.s3direct
scan direct hive_direct.s3direct
scan cold hive.s3
scan warm hive.s3
scan warm hive.s3

echo "coordinator /v1/node: $(curl -s -H 'X-Presto-User: rubix' "http://127.0.0.1:$CPORT/v1/node")"
membership() {
  local table
  # the jmx connector names a table by the bean's canonical name (keys sorted), lower case
  table=$(sql "SHOW TABLES FROM jmx.current LIKE 'io.rubix:%type=clustermembership%'" | head -1)
  [ -n "$table" ] || { echo "no io.rubix:type=ClusterMembership bean on the coordinator" >&2; exit 1; }
  # the name holds quotes (manager="presto http://..."): doubled inside a quoted identifier
  sql "SELECT node, manager, nodes, localnode, nodecount, consecutivefailures FROM jmx.current.\"${table//\"/\"\"}\" ORDER BY node"
}
# the io.rubix:type=ClusterMembership beans of one node, through airlift's JMX HTTP resource
node_membership() {
  curl -s "http://127.0.0.1:$2/v1/jmx/mbean" | python3 -c '
import json, sys
node = sys.argv[1]
for bean in json.load(sys.stdin):
    if bean["objectName"].startswith("io.rubix:") and "type=ClusterMembership" in bean["objectName"]:
        values = {a["name"]: a.get("value") for a in bean["attributes"]}
        print(node, {k: values.get(k) for k in ("Manager", "Nodes", "LocalNode", "ViewVersion", "ConsecutiveFailures", "LastError")})
' "$1" || echo "$1: no answer from /v1/jmx/mbean"
}
echo "RubiX cluster membership (jmx.current, the coordinator's beans):"
membership | tee "$WORK/membership-1.txt"
echo "RubiX cluster membership (each node's /v1/jmx/mbean):"
node_membership coordinator "$CPORT" | tee -a "$WORK/membership-1.txt"
node_membership worker "$WPORT" | tee -a "$WORK/membership-1.txt"
grep -h 'io.rubix' "$WORK/worker-1.log" | cut -f4- || true

stop_node worker
start_node worker 2
await_worker
scan restarted hive.s3
scan warm hive.s3
echo "after the worker restart, coordinator /v1/node: $(curl -s -H 'X-Presto-User: rubix' "http://127.0.0.1:$CPORT/v1/node")"
echo "RubiX cluster membership after the worker restart (each node's /v1/jmx/mbean):"
node_membership coordinator "$CPORT" | tee "$WORK/membership-2.txt"
node_membership worker "$WPORT" | tee -a "$WORK/membership-2.txt"
grep -h 'io.rubix' "$WORK/worker-2.log" | cut -f4- || true

stop_node worker
stop_node coordinator
exec 3>&-
wait "$S3PID" || true
echo "cache: $(du -sb "$WORK/cache-worker" | cut -f1) bytes on the worker, $(du -sb "$WORK/cache-coordinator" | cut -f1) on the coordinator"
echo "results in $RESULTS"
