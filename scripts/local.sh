#!/usr/bin/env bash
# make local-up / local-down: the local servers for the seed's workflow
# targets (packages/demo/src/local-platform.ts). `up` installs and builds
# what it needs first, the servers' binaries included.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "${1:-}" = up ]; then
  source scripts/setup.sh
else
  NODE_QUIET=1 source scripts/lib/node.sh
fi
exec node packages/demo/dist/local-platform.js "$@"
