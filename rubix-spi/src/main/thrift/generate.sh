#!/usr/bin/env bash
# Regenerates the committed Java code of bookkeeper.thrift with Debian's thrift-compiler 0.17
# (apt-get install thrift-compiler). Usage: generate.sh [output-dir] (default: the committed tree).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../../src/main/thrift-gen}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
thrift --gen java:generated_annotations=suppress -out "$tmp" "$here/bookkeeper.thrift"
rm -rf "$out/io/rubix/spi/thrift"
mkdir -p "$out"
cp -r "$tmp/io" "$out/"
sha=$(sha256sum "$here/bookkeeper.thrift" | cut -d' ' -f1)
cat > "$out/io/rubix/spi/thrift/IdlChecksum.java" <<JAVA
package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "$sha";

  private IdlChecksum() {}
}
JAVA
