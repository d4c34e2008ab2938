#!/usr/bin/env bash
# Runs one of the Makefile's workflow targets on the project's Node:
#   make-target.sh <target>           the dev-workflow tool's target
#   make-target.sh --node <script>    a Node script of ours (the generators)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NODE_QUIET=1 source scripts/lib/node.sh
if [ "${1:-}" = --node ]; then
  shift
  exec node "$@"
fi
exec node packages/dev-workflow/dist/main.js "$@"
