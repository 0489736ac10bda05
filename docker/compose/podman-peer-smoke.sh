#!/usr/bin/env bash
# Runs the compose demo's three BookKeepers (docker/compose/rubix/: static cluster bk1,bk2,bk3, peer
# reads with a secret) on a podman bridge network with an S3 server (S3Proxy's standalone jar, in a
# container of the same image), warms a small data set up through bk1 with `rubix warmup`, and prints
# `rubix status` of every node: bk1 caches the splits it owns, bk2 and bk3 fetch theirs from S3 for bk1's
# reads and cache them. For machines without a registry (no MinIO or Spark image); needs podman (root).
# Usage: docker/compose/podman-peer-smoke.sh S3PROXY_JAR   (org.gaul:s3proxy:4.1.0:jar-with-dependencies)
# Environment: RUBIX_IMAGE (default localhost/rubix-bookkeeper:dev), PODMAN_OPTIONS (default: runc, ulimits).
set -euo pipefail
jar="$(readlink -f "${1:?usage: podman-peer-smoke.sh S3PROXY_JAR}")"
image="${RUBIX_IMAGE:-localhost/rubix-bookkeeper:dev}"
read -r -a options <<< "${PODMAN_OPTIONS:---runtime /usr/sbin/runc --ulimit nofile=16384:16384 --ulimit nproc=16384:16384}"
conf="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/rubix"
run="rubix-smoke-$$"
work="$(mktemp -d /tmp/$run.XXXXXX)"
nodes=(bk1 bk2 bk3)

cleanup() {
  for c in "$run-s3" "${nodes[@]/#/$run-}"; do podman rm -f -v "$c" >/dev/null 2>&1 || true; done
  for n in "${nodes[@]}"; do podman volume rm -f "$run-cache-$n" >/dev/null 2>&1 || true; done
  podman network rm -f "$run" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# six 8 MiB objects: each is one split (rubix.cache.filesplit.size 256m), owned by one of the nodes;
# uploaded through S3 below (objects put in place as files would have no ETag)
mkdir -p "$work/data/rubix-tpcds" "$work/upload"
for i in 0 1 2 3 4 5; do head -c 8388608 /dev/urandom > "$work/upload/part-$i.bin"; done
chmod -R a+rwX "$work/data" "$work/upload"
cat > "$work/s3proxy.properties" <<PROPS
s3proxy.endpoint=http://0.0.0.0:9000
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=rubix-demo
s3proxy.credential=rubix-demo-secret
s3proxy.ignore-unknown-headers=true
jclouds.provider=filesystem
jclouds.filesystem.basedir=/data
PROPS

podman network create "$run" >/dev/null
podman run -d --name "$run-s3" --network "$run" --network-alias s3 "${options[@]}" \
  -v "$jar:/opt/s3proxy.jar:ro" -v "$work/s3proxy.properties:/opt/s3proxy.properties:ro" -v "$work/data:/data" \
  --entrypoint java "$image" -jar /opt/s3proxy.jar --properties /opt/s3proxy.properties >/dev/null
for n in "${nodes[@]}"; do
  podman volume create "$run-cache-$n" >/dev/null
  podman run -d --name "$run-$n" --hostname "$n" --network "$run" --network-alias "$n" "${options[@]}" \
    -v "$conf:/etc/rubix:ro" -v "$run-cache-$n:/var/cache/rubix" \
    -e RUBIX_OVERRIDES="-Drubix.cluster.node.id=$n" "$image" >/dev/null
done

deadline=$((SECONDS + 120))
for n in "${nodes[@]}"; do
  until podman exec "$run-$n" /opt/rubix/docker/healthcheck.sh >/dev/null 2>&1; do
    if (( SECONDS > deadline )); then podman logs "$run-$n" >&2; echo "$n not healthy" >&2; exit 1; fi
  done
done
echo "== three BookKeepers healthy after $SECONDS s"

# Hadoop's FsShell from the image's lib/ with the BookKeepers' core-site.xml (the S3 server's settings)
podman run --rm --network "$run" "${options[@]}" -v "$conf:/etc/rubix:ro" -v "$work/upload:/upload:ro" \
  --entrypoint java "$image" -cp "/etc/rubix:/opt/rubix/lib/*" \
  -Dlog4j.configuration=file:/opt/rubix/conf/log4j.properties -Drubix.root.logger=WARN,console \
  org.apache.hadoop.fs.FsShell -put /upload s3a://rubix-tpcds/smoke

echo "== warmup through bk1, cold"
podman exec "$run-bk1" /opt/rubix/bin/rubix warmup --no-progress s3a://rubix-tpcds/smoke/
echo "== warmup through bk1 again: the owners serve from their caches (rubix_peer_fill_source_bytes stays)"
podman exec "$run-bk1" /opt/rubix/bin/rubix warmup --no-progress s3a://rubix-tpcds/smoke/
for n in "${nodes[@]}"; do
  echo "== rubix status on $n"
  podman exec "$run-$n" /opt/rubix/bin/rubix status
  podman exec "$run-$n" /opt/rubix/bin/rubix stats | grep -E '^rubix_(transfer_requests|transfer_bytes_served|peer_fill_source_bytes) '
done
