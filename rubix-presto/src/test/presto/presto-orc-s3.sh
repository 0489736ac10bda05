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
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
WORK=${1:-$(mktemp -d /tmp/rubix-presto.XXXXXX)}
M2=${M2:-$HOME/.m2/repository}
# an artifact from $M2, else from ~/.m2/repository (as with -Dmaven.repo.local.tail)
artifact() { if [ -f "$M2/$1" ]; then echo "$M2/$1"; else echo "$HOME/.m2/repository/$1"; fi; }
PRESTO_VERSION=0.287
TARBALL=$(artifact com/facebook/presto/presto-server/$PRESTO_VERSION/presto-server-$PRESTO_VERSION.tar.gz)
ASM_VERSION=9.8
S3PROXY=$(artifact org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar)
JAR=$(ls "$ROOT"/rubix-presto/target/rubix-presto-*.jar | grep -v original | head -1)
TESTS=$(ls "$ROOT"/rubix-core/target/rubix-core-*-tests.jar | head -1)
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
echo "work dir $WORK; $("$JAVA" -version 2>&1 | head -1)"
mkdir -p "$WORK"
cd "$WORK"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
elapsed() { echo $(( $(date +%s%N) / 1000000 - $1 )); }

PRESTO=$WORK/presto-server-$PRESTO_VERSION
if [ ! -d "$PRESTO" ]; then
  started=$(date +%s%N); started=$((started / 1000000))
  # only what is used here: the server, the Hive connector, tpch (the expected answers), jmx (RubiX's beans)
  tar xzf "$TARBALL" --wildcards "presto-server-$PRESTO_VERSION/bin/*" "presto-server-$PRESTO_VERSION/lib/*" \
    "presto-server-$PRESTO_VERSION/plugin/hive-hadoop2/*" "presto-server-$PRESTO_VERSION/plugin/tpch/*" \
    "presto-server-$PRESTO_VERSION/plugin/jmx/*"
  # JDK 17 class files need ASM >= 9.1: PrestoDB 0.287 ships 9.0 in lib/ and in plugin/hive-hadoop2/
  for old in $(find "$PRESTO/lib" "$PRESTO/plugin" -name 'asm*-9.0.jar'); do
    name=$(basename "$old" -9.0.jar)
    new=$(artifact "org/ow2/asm/$name/$ASM_VERSION/$name-$ASM_VERSION.jar")
    [ -f "$new" ] || { echo "missing $new: ./mvnw dependency:get -Dartifact=org.ow2.asm:asm-util:$ASM_VERSION" >&2; exit 1; }
    rm "$old"
    cp "$new" "$(dirname "$old")/"
  done
  echo "unpacked in $(elapsed "$started") ms"
fi
cp "$JAR" "$PRESTO/plugin/hive-hadoop2/"

rm -rf "$WORK/cache-coordinator" "$WORK/cache-worker" "$WORK/metastore" "$WORK/s3"   # an empty cache and store
mkdir -p "$WORK/cache-coordinator" "$WORK/cache-worker" "$WORK/metastore"

# the S3 server in its own JVM; it exits when its stdin closes
rm -f s3in; mkfifo s3in
"$JAVA" -cp "$S3PROXY:$TESTS" io.rubix.testing.S3ServerMain --dir "$WORK/s3" --bucket warehouse < s3in > s3server.out 2> s3server.log &
S3PID=$!
exec 3> s3in
for _ in $(seq 1 300); do grep -q '^S3SERVER' s3server.out 2>/dev/null && break; sleep 0.2; done
ENDPOINT=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\1/p' s3server.out)
CONTROL=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\2/p' s3server.out)
echo "S3 server $ENDPOINT (control $CONTROL)"

CPORT=$(free_port)
WPORT=$(free_port)

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
  cat > "$etc/jvm.config" <<P
-server
-Xmx$3
-XX:+UseG1GC
-XX:+ExitOnOutOfMemoryError
-Djdk.attach.allowAttachSelf=true
P
  # JDK 17: Guice 4.2's cglib defines classes through ClassLoader.defineClass, airlift/slice/netty use internals
  for package in java.lang java.lang.reflect java.lang.invoke java.io java.net java.nio java.util java.util.concurrent \
      java.util.concurrent.atomic sun.nio.ch jdk.internal.misc jdk.internal.ref; do
    echo "--add-opens=java.base/$package=ALL-UNNAMED" >> "$etc/jvm.config"
  done
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
  echo "connector.name=tpch" > "$etc/catalog/tpch.properties"
  echo "connector.name=jmx" > "$etc/catalog/jmx.properties"
  # through RubiX: the file systems named in core-site.xml
  cat > "$etc/catalog/hive.properties" <<P
connector.name=hive-hadoop2
hive.metastore=file
hive.metastore.catalog.dir=file://$WORK/metastore
hive.s3-file-system-type=HADOOP_DEFAULT
hive.config.resources=$etc/core-site.xml
P
  # stock PrestoDB: its own PrestoS3FileSystem, configured by hive.s3.* (same metastore). Its tables say s3://,
  # the cached ones s3a://: PrestoDB's FileSystem cache is shared by the catalogs of a plugin and keyed by
  # scheme, bucket and user, so the catalog that opens s3a://warehouse first would decide for both
  cat > "$etc/catalog/hive_direct.properties" <<P
connector.name=hive-hadoop2
hive.metastore=file
hive.metastore.catalog.dir=file://$WORK/metastore
hive.s3.endpoint=$ENDPOINT
hive.s3.aws-access-key=rubix-access
hive.s3.aws-secret-key=rubix-secret
hive.s3.path-style-access=true
hive.s3.ssl.enabled=false
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
  <property><name>presto.s3.endpoint</name><value>$ENDPOINT</value></property>
  <property><name>presto.s3.access-key</name><value>rubix-access</value></property>
  <property><name>presto.s3.secret-key</name><value>rubix-secret</value></property>
  <property><name>presto.s3.path-style-access</name><value>true</value></property>
  <property><name>presto.s3.ssl.enabled</name><value>false</value></property>
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

# runs one statement through the REST protocol, prints its rows; the time goes to stderr
sql() {
  python3 - "$CPORT" "$1" <<'PY'
import json, sys, time, urllib.request
port, statement = sys.argv[1], sys.argv[2]
headers = {"X-Presto-User": "rubix"}
start = time.time()
resp = json.load(urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/v1/statement", data=statement.encode(), headers=headers)))
rows = []
while True:
    rows += resp.get("data", [])
    if "error" in resp:
        info = resp["error"].get("failureInfo", {})
        sys.exit("query failed: " + resp["error"].get("message", "") + "\n" + "\n".join(info.get("stack", [])[:15]))
    if "nextUri" not in resp:
        break
    resp = json.load(urllib.request.urlopen(urllib.request.Request(resp["nextUri"], headers=headers)))
for row in rows:
    print("\t".join(str(v) for v in row))
print(f"{(time.time() - start) * 1000:.0f} ms", file=sys.stderr)
PY
}
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
counters() { curl -s "$CONTROL/counters" | tr '\n' ' '; }
reset() { curl -s -X POST "$CONTROL/reset" > /dev/null; }
# PUT with SigV4 (curl signs; S3Proxy checks the payload hash, so it is sent)
put() {
  local sha; sha=$(sha256sum "$1" | cut -d' ' -f1)
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "rubix-access:rubix-secret" -H "x-amz-content-sha256: $sha" \
    -T "$1" "$ENDPOINT/warehouse/$2" > /dev/null
}

started=$(date +%s%N); started=$((started / 1000000))
start_node coordinator 1
start_node worker 1
await_coordinator
await_worker
echo "coordinator and worker up in $(elapsed "$started") ms"

# TPC-H sf1 as ORC: written by PrestoDB into a managed table of the file metastore (local disk), copied to
# S3, and declared there as an external table (the file metastore does not create tables on s3a:// itself).
# Bucketed only to get files under S3Proxy's 32 MB limit for a single PUT; the S3 tables are not bucketed.
sql "CREATE SCHEMA IF NOT EXISTS hive.local"
sql "CREATE SCHEMA IF NOT EXISTS hive.s3"         # the tables on s3a://, read through RubiX (catalog hive)
sql "CREATE SCHEMA IF NOT EXISTS hive.s3direct"   # the same objects as s3://, read by stock PrestoDB (catalog hive_direct)
declare -A BUCKETS=([lineitem]=16 [orders]=4)
for table in lineitem orders; do
  sql "CREATE TABLE IF NOT EXISTS hive.local.$table WITH (format = 'ORC', bucketed_by = ARRAY['orderkey'], bucket_count = ${BUCKETS[$table]}) AS SELECT * FROM tpch.sf1.$table" > /dev/null
  for file in "$WORK/metastore/local/$table"/*; do
    case $(basename "$file") in .*) continue ;; esac
    put "$file" "tpch/$table/$(basename "$file")"
  done
  # the file metastore checks an external location with java.io.File ("URI scheme is not \"file\""): write
  # the table's metadata as it would, from the local table's: external, on s3a://, not bucketed, no statistics
  for schema in s3:s3a s3direct:s3; do
    dir=$WORK/metastore/${schema%%:*}/$table
    mkdir -p "$dir"
    python3 - "$WORK/metastore/local/$table/.prestoSchema" "$dir/.prestoSchema" "${schema#*:}://warehouse/tpch/$table" <<'PY'
import json, sys
table = json.load(open(sys.argv[1]))
table.update(tableType="EXTERNAL_TABLE", externalLocation=sys.argv[3], parameters={}, columnStatistics={})
table.pop("bucketProperty", None)
json.dump(table, open(sys.argv[2], "w"), indent=2)
PY
    cp -r "$WORK/metastore/local/$table/.prestoPermissions" "$dir/"
  done
done
echo "ORC on S3: $(du -sb "$WORK/s3/warehouse/tpch" | cut -f1) bytes in $(find "$WORK/s3/warehouse/tpch" -type f | wc -l) objects"

# decimal sums: exact whatever order the splits are summed in
Q1="SELECT count(*), sum(CAST(quantity AS decimal(12,2))), sum(CAST(extendedprice AS decimal(12,2))), max(comment) FROM %s.lineitem"
Q2="SELECT o.orderpriority, count(*), sum(CAST(l.extendedprice * (1 - l.discount) AS decimal(18,4))) FROM %s.lineitem l JOIN %s.orders o ON l.orderkey = o.orderkey WHERE o.orderdate >= DATE '1995-01-01' AND o.orderdate < DATE '1995-04-01' AND l.receiptdate > l.commitdate GROUP BY o.orderpriority ORDER BY o.orderpriority"
# shellcheck disable=SC2059
query() { if [ "$1" = 1 ]; then printf "$Q1" "$2"; else printf "$Q2" "$2" "$2"; fi; }
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
    RESULT=$(sql "$(query $q "$schema")" 2> "$WORK/time")
    local expected; expected=$([ $q = 1 ] && echo "$EXPECTED1" || echo "$EXPECTED2")
    [ "$RESULT" = "$expected" ] || { echo "$run Q$q: answer differs: $RESULT" >&2; exit 1; }
    printf '%s\tQ%s\t%s\t%s\n' "$run" "$q" "$(cut -d' ' -f1 "$WORK/time")" "$(counters)" | tee -a "$RESULTS"
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
