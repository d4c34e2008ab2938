#!/usr/bin/env bash
# Runs every check and test: lint, type check (the build), unit tests, and the
# e2e suites against real kcp and kube-apiserver processes. Ends with one line
# `N passed, N failed` and a non-zero exit status on any failure.
# EDGECONNECT_E2E_INFRA=kind uses a kind cluster instead of the local
# kube-apiserver when Docker is available (those tests skip, saying why, when
# it is not).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

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
mkdir -p .cache/reports
report=.cache/reports/jest.json
guard_report=.cache/reports/credential-guard.json  # written by e2e/src/global-teardown.ts
rm -f "$report" "$guard_report"
started=$(date +%s)
set +e
node --experimental-vm-modules node_modules/jest/bin/jest.js --ci --json --outputFile="$report" >&2
jest_status=$?
set -e
echo "tests took $(elapsed "$started")" >&2

step "running the Go tests of the Crossplane OTC provider simulator"
go_report=.cache/reports/go-test.jsonl
set +e
(cd scripts/binaries/crossplane-otc-simulator && go test -mod=readonly -json ./...) > "$go_report"
go_status=$?
set -e
node scripts/test-summary.mjs "$report" "$jest_status" "$guard_report" "$go_report" "$go_status"
