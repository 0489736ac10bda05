#!/usr/bin/env bash
# Opt-in, not in CI: real Trino 476 (tarball from Maven Central) reading an ORC table on s3a:// through
# the rubix-presto jar (CachingTrinoS3FileSystem wrapping TrinoS3FileSystem), against the S3 server of
# the rubix-core tests (S3Proxy, own JVM, counts GETs). Prints the GETs and times of a cold and a warm
# scan, and of a warm scan after a Trino restart.
#
#   ./mvnw -B -q package -pl rubix-presto -am -DskipTests      # the jar, and rubix-core's test jar
#   ./mvnw -B -q dependency:get -Dartifact=io.trino:trino-server:476:tar.gz -Dtransitive=false
#   JAVA25=/usr/lib/jvm/temurin-25-jdk-amd64 rubix-presto/src/test/trino/trino-orc-s3.sh [work dir]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
WORK=${1:-$(mktemp -d /tmp/rubix-trino.XXXXXX)}
JAVA25=${JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64}
M2=${M2:-$HOME/.m2/repository}
TARBALL=$M2/io/trino/trino-server/476/trino-server-476.tar.gz
S3PROXY=$M2/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar
JAR=$(ls "$ROOT"/rubix-presto/target/rubix-presto-*.jar | grep -v original | head -1)
TESTS=$(ls "$ROOT"/rubix-core/target/rubix-core-*-tests.jar | head -1)
echo "work dir $WORK"
mkdir -p "$WORK"
cd "$WORK"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

if [ ! -d trino-server-476 ]; then
  tar xzf "$TARBALL"
  # only the connectors used here, for a faster start
  find trino-server-476/plugin -mindepth 1 -maxdepth 1 -type d ! -name hive ! -name tpch -exec rm -rf {} +
fi
TRINO=$WORK/trino-server-476
cp "$JAR" "$TRINO/plugin/hive/hdfs/"

# the S3 server in its own JVM; it exits when its stdin closes
mkfifo s3in 2>/dev/null || true
java -cp "$S3PROXY:$TESTS" io.rubix.testing.S3ServerMain --dir "$WORK/s3" --bucket warehouse < s3in > s3server.out 2> s3server.log &
S3PID=$!
exec 3> s3in
for _ in $(seq 1 300); do grep -q '^S3SERVER' s3server.out 2>/dev/null && break; sleep 0.2; done
ENDPOINT=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\1/p' s3server.out)
CONTROL=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\2/p' s3server.out)
echo "S3 server $ENDPOINT (control $CONTROL)"

PORT=$(free_port)
rm -rf "$WORK/cache"   # the cold run starts from an empty cache
mkdir -p "$TRINO/etc/catalog" "$WORK/cache" "$WORK/metastore"
cat > "$TRINO/etc/node.properties" <<P
node.environment=rubix
node.id=node-1
node.data-dir=$WORK/data
P
cat > "$TRINO/etc/jvm.config" <<P
-server
-Xmx2G
-XX:+UseG1GC
-XX:+ExitOnOutOfMemoryError
-Djdk.attach.allowAttachSelf=true
P
cat > "$TRINO/etc/config.properties" <<P
coordinator=true
node-scheduler.include-coordinator=true
http-server.http.port=$PORT
discovery.uri=http://127.0.0.1:$PORT
query.max-memory=1GB
P
cat > "$TRINO/etc/catalog/tpch.properties" <<P
connector.name=tpch
P
cat > "$TRINO/etc/catalog/hive.properties" <<P
connector.name=hive
hive.metastore=file
hive.metastore.catalog.dir=file://$WORK/metastore
fs.hadoop.enabled=true
fs.native-s3.enabled=false
hive.s3-file-system-type=HADOOP_DEFAULT
hive.config.resources=$WORK/core-site.xml
hive.non-managed-table-writes-enabled=true
P
cat > "$WORK/core-site.xml" <<P
<configuration>
  <property><name>fs.s3a.impl</name><value>io.rubix.presto.CachingTrinoS3FileSystem</value></property>
  <property><name>fs.s3.impl</name><value>io.rubix.presto.CachingTrinoS3FileSystem</value></property>
  <property><name>rubix.cache.dirs</name><value>$WORK/cache</value></property>
  <property><name>trino.s3.endpoint</name><value>$ENDPOINT</value></property>
  <property><name>trino.s3.access-key</name><value>rubix-access</value></property>
  <property><name>trino.s3.secret-key</name><value>rubix-secret</value></property>
  <property><name>trino.s3.path-style-access</name><value>true</value></property>
  <property><name>trino.s3.ssl.enabled</name><value>false</value></property>
</configuration>
P

start_trino() {
  PATH="$JAVA25/bin:$PATH" "$TRINO/bin/launcher" --etc-dir "$TRINO/etc" run > "$WORK/trino-$1.log" 2>&1 &
  TRINOPID=$!
  for _ in $(seq 1 600); do
    if curl -sf "http://127.0.0.1:$PORT/v1/info" | grep -q '"starting":false'; then return 0; fi
    sleep 0.5
  done
  echo "Trino did not start; see $WORK/trino-$1.log" >&2; exit 1
}
stop_trino() { kill "$TRINOPID"; wait "$TRINOPID" || true; TRINOPID=; }
TRINOPID=
cleanup() {
  if [ -n "$TRINOPID" ]; then kill "$TRINOPID" 2>/dev/null || true; fi
  kill "$S3PID" 2>/dev/null || true
}
trap cleanup EXIT

# runs one statement through the REST protocol, prints its rows; the time goes to stderr
sql() {
  python3 - "$PORT" "$1" <<'PY'
import json, sys, time, urllib.request
port, statement = sys.argv[1], sys.argv[2]
start = time.time()
req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/statement", data=statement.encode(), headers={"X-Trino-User": "rubix"})
resp = json.load(urllib.request.urlopen(req))
rows = []
while True:
    rows += resp.get("data", [])
    if "error" in resp:
        info = resp["error"].get("failureInfo", {})
        sys.exit("query failed: " + resp["error"].get("message", "") + "\n" + "\n".join(info.get("stack", [])[:15]))
    if "nextUri" not in resp:
        break
    resp = json.load(urllib.request.urlopen(urllib.request.Request(resp["nextUri"], headers={"X-Trino-User": "rubix"})))
for row in rows:
    print("\t".join(str(v) for v in row))
print(f"{(time.time() - start) * 1000:.0f} ms", file=sys.stderr)
PY
}
await_worker() {
  for _ in $(seq 1 240); do
    # the node must also announce its catalogs before queries can be scheduled on it
    [ "$(sql "SELECT count(*) FROM tpch.tiny.region" 2>/dev/null)" = 5 ] && return 0
    sleep 0.5
  done
  echo "no active node" >&2; exit 1
}
gets() { curl -s "$CONTROL/counters" | tr '\n' ' '; }
reset() { curl -s -X POST "$CONTROL/reset" > /dev/null; }

start_trino 1
await_worker
# decimal sums: exact whatever order the splits are summed in
QUERY="SELECT count(*), sum(CAST(quantity AS decimal(12,2))), sum(CAST(extendedprice AS decimal(12,2))), max(comment) FROM hive.s.lineitem"
sql "CREATE SCHEMA IF NOT EXISTS hive.s WITH (location = 's3a://warehouse/s')"
# external: the file metastore keeps managed tables under its own directory
sql "CREATE TABLE IF NOT EXISTS hive.s.lineitem WITH (format = 'ORC', external_location = 's3a://warehouse/s/lineitem') AS SELECT * FROM tpch.sf1.lineitem"
EXPECTED=$(sql "SELECT count(*), sum(CAST(quantity AS decimal(12,2))), sum(CAST(extendedprice AS decimal(12,2))), max(comment) FROM tpch.sf1.lineitem")
echo "expected: $EXPECTED"
for run in cold warm; do
  reset
  RESULT=$(sql "$QUERY" 2> "$WORK/time")
  echo "$run: $(cat "$WORK/time"), S3: $(gets)"
  [ "$RESULT" = "$EXPECTED" ] || { echo "answer differs: $RESULT" >&2; exit 1; }
done
stop_trino
start_trino 2
await_worker
reset
RESULT=$(sql "$QUERY" 2> "$WORK/time")
echo "after restart: $(cat "$WORK/time"), S3: $(gets)"
[ "$RESULT" = "$EXPECTED" ] || { echo "answer differs: $RESULT" >&2; exit 1; }
stop_trino
exec 3>&-
wait "$S3PID" || true
echo "cache: $(du -sh "$WORK/cache" | cut -f1)"
