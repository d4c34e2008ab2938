#!/usr/bin/env bash
# Starts the Cluster API cluster provider locally, as openMCP runs it, on the
# real Cluster API stack with the in-memory provider, and shows the openMCP
# flow working; Ctrl-C stops and cleans up everything it started.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
step "starting the cluster-provider-capi demo"
exec node packages/demo/dist/capi-demo.js
