# What presto-orc-s3.sh and presto-cluster-s3.sh share: the PrestoDB 0.287 tarball unpacked for JDK 17, the S3
# server, node configuration, statements over the REST protocol and the TPC-H tables on S3. Sourced with ROOT
# (the repository) and WORK (the work directory, the current one) set; COORDINATOR_URL is set by the script.
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
PRESTO=$WORK/presto-server-$PRESTO_VERSION

elapsed() { echo $(( $(date +%s%N) / 1000000 - $1 )); }

# unpacks what is used (the server, the Hive connector, tpch for the expected answers, jmx for RubiX's beans)
# once per work directory, swaps ASM 9.0 for 9.8 (JDK 17 class files need ASM >= 9.1), and adds the jar
unpack_presto() {
  if [ ! -d "$PRESTO" ]; then
    local started; started=$(date +%s%N); started=$((started / 1000000))
    tar xzf "$TARBALL" --wildcards "presto-server-$PRESTO_VERSION/bin/*" "presto-server-$PRESTO_VERSION/lib/*" \
      "presto-server-$PRESTO_VERSION/plugin/hive-hadoop2/*" "presto-server-$PRESTO_VERSION/plugin/tpch/*" \
      "presto-server-$PRESTO_VERSION/plugin/jmx/*"
    local old name new
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
}

# the S3 server in its own JVM, on an empty store; it exits when its stdin (fd 3) closes. Sets S3PID, ENDPOINT, CONTROL
start_s3_server() {
  rm -rf "$WORK/s3" "$WORK/s3in"
  mkfifo "$WORK/s3in"
  "$JAVA" -cp "$S3PROXY:$TESTS" io.rubix.testing.S3ServerMain --dir "$WORK/s3" --bucket warehouse \
    < "$WORK/s3in" > "$WORK/s3server.out" 2> "$WORK/s3server.log" &
  S3PID=$!
  exec 3> "$WORK/s3in"
  for _ in $(seq 1 300); do grep -q '^S3SERVER' "$WORK/s3server.out" 2>/dev/null && break; sleep 0.2; done
  ENDPOINT=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\1/p' "$WORK/s3server.out")
  CONTROL=$(sed -n 's/^S3SERVER endpoint=\([^ ]*\) control=\(.*\)$/\2/p' "$WORK/s3server.out")
  [ -n "$ENDPOINT" ] || { echo "the S3 server did not start; see $WORK/s3server.log" >&2; exit 1; }
  echo "S3 server $ENDPOINT (control $CONTROL)"
}
counters() { curl -s "$CONTROL/counters" | tr '\n' ' '; }
reset() { curl -s -X POST "$CONTROL/reset" > /dev/null; }
# PUT with SigV4 (curl signs; S3Proxy checks the payload hash, so it is sent)
put() {
  local sha; sha=$(sha256sum "$1" | cut -d' ' -f1)
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "rubix-access:rubix-secret" -H "x-amz-content-sha256: $sha" \
    -T "$1" "$ENDPOINT/warehouse/$2" > /dev/null
}

# jvm.config of a node with HEAP: JDK 17 needs these opens (Guice 4.2's cglib defines classes through
# ClassLoader.defineClass, airlift/slice/netty use internals)
jvm_config() {
  printf '%s\n' -server "-Xmx$2" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Djdk.attach.allowAttachSelf=true > "$1"
  local package
  for package in java.lang java.lang.reflect java.lang.invoke java.io java.net java.nio java.util java.util.concurrent \
      java.util.concurrent.atomic sun.nio.ch jdk.internal.misc jdk.internal.ref; do
    echo "--add-opens=java.base/$package=ALL-UNNAMED" >> "$1"
  done
}

# the catalogs of a node's ETC directory: tpch, jmx, and hive_direct, stock PrestoDB (its own PrestoS3FileSystem,
# configured by hive.s3.*). Its tables say s3://, the cached ones s3a://: PrestoDB's FileSystem cache is shared by
# the catalogs of a plugin and keyed by scheme, bucket and user, so the catalog that opens s3a://warehouse first
# would decide for both
common_catalogs() {
  echo "connector.name=tpch" > "$1/catalog/tpch.properties"
  echo "connector.name=jmx" > "$1/catalog/jmx.properties"
  cat > "$1/catalog/hive_direct.properties" <<P
connector.name=hive-hadoop2
hive.metastore=file
hive.metastore.catalog.dir=file://$WORK/metastore
hive.s3.endpoint=$ENDPOINT
hive.s3.aws-access-key=rubix-access
hive.s3.aws-secret-key=rubix-secret
hive.s3.path-style-access=true
hive.s3.ssl.enabled=false
P
}
# PrestoS3FileSystem's settings in core-site.xml, for what CachingPrestoS3FileSystem wraps
presto_s3_properties() {
  cat <<P
  <property><name>presto.s3.endpoint</name><value>$ENDPOINT</value></property>
  <property><name>presto.s3.access-key</name><value>rubix-access</value></property>
  <property><name>presto.s3.secret-key</name><value>rubix-secret</value></property>
  <property><name>presto.s3.path-style-access</name><value>true</value></property>
  <property><name>presto.s3.ssl.enabled</name><value>false</value></property>
P
}

# one statement through the REST protocol at COORDINATOR_URL (SESSION: an X-Presto-Session value): its rows on
# stdout; its id and time in ms in $WORK/query-id and $WORK/time; given up (cancelled) after 600 s
sql() {
  python3 - "$COORDINATOR_URL" "$1" "$WORK/query-id" "${SESSION:-}" "$WORK/time" <<'PY'
import json, sys, time, urllib.request
url, statement, id_file, session, time_file = sys.argv[1:6]
headers = {"X-Presto-User": "rubix"}
if session:
    headers["X-Presto-Session"] = session
start = time.time()
resp = json.load(urllib.request.urlopen(urllib.request.Request(f"{url}/v1/statement", data=statement.encode(), headers=headers), timeout=60))
open(id_file, "w").write(resp["id"])
rows = []
while True:
    rows += resp.get("data", [])
    if "error" in resp:
        info = resp["error"].get("failureInfo", {})
        sys.exit("query failed: " + resp["error"].get("message", "") + "\n" + "\n".join(info.get("stack", [])[:15]))
    if "nextUri" not in resp:
        break
    if time.time() - start > 600:
        urllib.request.urlopen(urllib.request.Request(resp["nextUri"], headers=headers, method="DELETE"), timeout=60)
        sys.exit(f"query {resp['id']} still running after 600 s: cancelled")
    resp = json.load(urllib.request.urlopen(urllib.request.Request(resp["nextUri"], headers=headers), timeout=60))
for row in rows:
    print("\t".join(str(v) for v in row))
open(time_file, "w").write(f"{(time.time() - start) * 1000:.0f}")
PY
}

# TPC-H sf1 TABLE as ORC: written by PrestoDB into a managed table of the file metastore (local disk, bucketed by
# COLUMN into COUNT files, only to choose the number and size of the files: S3Proxy takes at most 32 MB in one
# PUT), copied to S3, and declared there as an external table twice: hive.s3 on s3a:// (through RubiX) and
# hive.s3direct on s3:// (stock PrestoDB). The file metastore creates no table on S3 ("URI scheme is not
# \"file\"": it checks an external location with java.io.File), so their metadata is written as it would be,
# from the local table's: external, not bucketed, no statistics
tpch_table_on_s3() {
  local table=$1 column=$2 count=$3 file schema dir
  sql "CREATE SCHEMA IF NOT EXISTS hive.local" > /dev/null
  sql "CREATE SCHEMA IF NOT EXISTS hive.s3" > /dev/null
  sql "CREATE SCHEMA IF NOT EXISTS hive.s3direct" > /dev/null
  sql "CREATE TABLE IF NOT EXISTS hive.local.$table WITH (format = 'ORC', bucketed_by = ARRAY['$column'], bucket_count = $count) AS SELECT * FROM tpch.sf1.$table" > /dev/null
  for file in "$WORK/metastore/local/$table"/*; do
    case $(basename "$file") in .*) continue ;; esac
    put "$file" "tpch/$table/$(basename "$file")"
  done
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
}
# the bytes of the objects on S3
s3_table_bytes() { find "$WORK/s3/warehouse/tpch" -type f -printf '%s\n' | awk '{ total += $1 } END { print total }'; }

# the queries: decimal sums, exact whatever order the splits are summed in
Q1="SELECT count(*), sum(CAST(quantity AS decimal(12,2))), sum(CAST(extendedprice AS decimal(12,2))), max(comment) FROM %s.lineitem"
Q2="SELECT o.orderpriority, count(*), sum(CAST(l.extendedprice * (1 - l.discount) AS decimal(18,4))) FROM %s.lineitem l JOIN %s.orders o ON l.orderkey = o.orderkey WHERE o.orderdate >= DATE '1995-01-01' AND o.orderdate < DATE '1995-04-01' AND l.receiptdate > l.commitdate GROUP BY o.orderpriority ORDER BY o.orderpriority"
# shellcheck disable=SC2059
query() { if [ "$1" = 1 ]; then printf "$Q1" "$2"; else printf "$Q2" "$2" "$2"; fi; }
