#!/usr/bin/env bash
# Starts the BookKeeper in the foreground as the container's main process.
# RUBIX_OVERRIDES: space-separated -Dkey=value settings that win over $RUBIX_CONF_DIR/rubix-site.xml
# (values cannot contain spaces); arguments of the container are appended and win over both.
set -euo pipefail
# word splitting of RUBIX_OVERRIDES is intended: it holds several settings
# shellcheck disable=SC2086
exec "$RUBIX_HOME/bin/rubix-bookkeeper" ${RUBIX_OVERRIDES:-} "$@"
