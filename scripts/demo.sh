#!/usr/bin/env bash
# Starts the system locally on real servers and shows it working; Ctrl-C stops
# and cleans up everything it started.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
step "starting the demo"
exec node packages/demo/dist/main.js
