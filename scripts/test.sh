#!/usr/bin/env bash
# Runs every check and test: lint, type check (the build), unit tests, and the
# e2e suites against real kcp and kube-apiserver processes. Ends with one line
# `N passed, N failed` and a non-zero exit status on any failure.
# EDGECONNECT_E2E_INFRA=kind uses a kind cluster instead of the local
# kube-apiserver when Docker is available (those tests skip, saying why, when
# it is not).
run_started=$(date +%s)
SETUP_BINARIES=all source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

mkdir -p .cache/reports
# Helm and the Go peer, which only short suites use (they start late), are
# built beside the checks and tests, at a lower priority; a suite that needs
# one first waits for its build (binaries.ts holds a lock per binary) or
# builds it itself. The Cluster API managers are not: built beside the
# suites, under their load, they took longer than the suites before them,
# and the longest suites need them.
step "building helm and the Go peer in the background"
nice -n 10 node packages/testenv/dist/cli/ensure-binaries.js helm widget-controller-go > .cache/reports/background-binaries.log 2>&1 &
background_binaries=$!
# The simulator's Go tests need no server: they run beside the rest too,
# with the flags of its build (binaries.ts), so they reuse its compiled
# packages instead of compiling the whole dependency graph again.
step "running the Go tests of the Crossplane OTC provider simulator in the background"
go_report=.cache/reports/go-test.jsonl
(cd scripts/binaries/crossplane-otc-simulator && CGO_ENABLED=0 GOFLAGS=-buildvcs=false exec nice -n 10 go test -mod=readonly -trimpath -json ./...) \
  > "$go_report" 2> .cache/reports/go-test.stderr &
go_tests=$!
# A check that fails ends the run: nothing started here outlives it.
trap 'kill "$background_binaries" "$go_tests" 2>/dev/null || true' EXIT

step "linting"
"${PNPM[@]}" run --silent lint >&2

step "checking that generated kcp types match the pinned kcp"
node scripts/generate-kcp-types.mjs --check >&2

step "checking that generated API types and APIExport match the CRDs"
node scripts/generate-api.mjs --check >&2

step "checking that the Cluster API provider's types match their CRDs"
node scripts/generate-capi-provider-api.mjs --check >&2

step "type-checking the README examples"
node scripts/check-readme-examples.mjs >&2

step "running tests"
report=.cache/reports/jest.json
guard_report=.cache/reports/credential-guard.json  # written by e2e/src/global-teardown.ts
rm -f "$report" "$guard_report"
started=$(date +%s)
set +e
node --experimental-vm-modules node_modules/jest/bin/jest.js --ci --json --outputFile="$report" >&2
jest_status=$?
set -e
echo "tests took $(elapsed "$started")" >&2

step "waiting for the background builds and the Go tests"
set +e
wait "$go_tests"
go_status=$?
[ "$go_status" = 0 ] || cat .cache/reports/go-test.stderr >&2
wait "$background_binaries" || { echo "building in the background failed:" >&2; tail -20 .cache/reports/background-binaries.log >&2; }
set -e
echo "everything took $(elapsed "$run_started")" >&2
node scripts/test-summary.mjs "$report" "$jest_status" "$guard_report" "$go_report" "$go_status"
