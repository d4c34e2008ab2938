#!/usr/bin/env bash
# `pnpm test:unit [pattern...] [jest options]` and `pnpm test:e2e [...]`:
# one Jest project, narrowed to the files matching the patterns. Jest's
# --selectProjects takes every word after it as a project name, so the
# leading words that are not options go to --testPathPatterns instead.
# The e2e suites need a build and the servers' binaries: `bash scripts/test.sh`
# (or scripts/setup.sh) once first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NODE_QUIET=1 source scripts/lib/node.sh
project=$1
shift
# `pnpm test:e2e -- x` passes the `--` on.
[ "${1:-}" != -- ] || shift
patterns=()
while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do
  patterns+=("$1")
  shift
done
args=(--selectProjects "$project")
[ ${#patterns[@]} -eq 0 ] || args+=(--testPathPatterns "${patterns[@]}")
exec node --experimental-vm-modules node_modules/jest/bin/jest.js "${args[@]}" "$@"
