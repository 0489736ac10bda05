#!/usr/bin/env bash
# The image's HEALTHCHECK and the Kubernetes probes: `rubix status` asks the daemon over its Thrift port
# (an authenticated round trip), with the same -D overrides as the daemon. Exit 0 when it answers.
set -euo pipefail
args=()
# shellcheck disable=SC2086
for setting in ${RUBIX_OVERRIDES:-}; do
  [[ "$setting" == -D* ]] && args+=(-D "${setting#-D}")
done
export RUBIX_CLI_OPTS="${RUBIX_HEALTHCHECK_OPTS:--Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto}"
exec "$RUBIX_HOME/bin/rubix" status --top 0 "${args[@]}"
