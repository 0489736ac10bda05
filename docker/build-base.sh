#!/usr/bin/env bash
# Builds the base image localhost/rubix-base:bookworm (Debian 12 minbase + openjdk-17-jre-headless) from
# Debian's packages alone, for machines that reach a Debian mirror but no container registry.
# On a machine with registry access you do not need it: the Dockerfile's default base is public.
#
# Usage (as root; needs debootstrap and podman): docker/build-base.sh [IMAGE] [MIRROR]
#   IMAGE   default localhost/rubix-base:bookworm
#   MIRROR  default http://deb.debian.org/debian
# Then: podman build --build-arg BASE_IMAGE=localhost/rubix-base:bookworm ... (see docs/deploy.md).
set -euo pipefail

image="${1:-localhost/rubix-base:bookworm}"
mirror="${2:-http://deb.debian.org/debian}"
for tool in debootstrap podman; do
  command -v "$tool" >/dev/null || { echo "build-base.sh: $tool not found (apt-get install -y $tool)" >&2; exit 1; }
done
[[ $(id -u) -eq 0 ]] || { echo "build-base.sh: run as root (debootstrap and chroot need it)" >&2; exit 1; }

rootfs="$(mktemp -d /tmp/rubix-base-rootfs.XXXXXX)"
cleanup() {
  umount "$rootfs/proc" 2>/dev/null || true
  rm -rf --one-file-system "$rootfs"
}
trap cleanup EXIT

debootstrap --variant=minbase bookworm "$rootfs" "$mirror"
mount -t proc proc "$rootfs/proc"
chroot "$rootfs" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  openjdk-17-jre-headless ca-certificates
chroot "$rootfs" apt-get clean
umount "$rootfs/proc"
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/tmp/* "$rootfs"/var/log/*.log

# JAVA_HOME without the architecture in it, as eclipse-temurin's /opt/java/openjdk
java_home="$(dirname "$(dirname "$(chroot "$rootfs" readlink -f /usr/bin/java)")")"
ln -s "$java_home" "$rootfs/opt/java-17"

tar --numeric-owner -C "$rootfs" -c . | podman import \
  --change 'ENV JAVA_HOME=/opt/java-17' \
  --change 'ENV PATH=/opt/java-17/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  - "$image"
podman image inspect --format '{{.Id}} {{.Size}}' "$image"
