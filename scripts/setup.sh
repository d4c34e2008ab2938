# Sourced by test.sh and demo.sh: brings everything a fresh machine lacks.
# Needs Node (any version with npm: an older one than the project runs on
# fetches it) and, unless KCP_BIN / KUBE_APISERVER_BIN /
# KUBE_CONTROLLER_MANAGER_BIN / ETCD_BIN / HELM_BIN (and the Cluster API
# managers' variables) or cached builds are there, Go (to build them from the
# module proxy).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PNPM_VERSION=10.34.8
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

source scripts/lib/node.sh

# A fresh machine has no pnpm; npx fetches the pinned one from the registry.
if command -v pnpm >/dev/null 2>&1 && [ "$(pnpm --version)" = "$PNPM_VERSION" ]; then
  PNPM=(pnpm)
else
  PNPM=(npx --yes "pnpm@$PNPM_VERSION")
fi

started=$(date +%s)
step "installing dependencies (pnpm $PNPM_VERSION)"
"${PNPM[@]}" install --frozen-lockfile --reporter=append-only >&2
step "building (tsc -b)"
"${PNPM[@]}" run --silent build >&2
# make's targets run this script when a source changed; it just did what
# their stamp stands for, so a make run from here on (the workflow e2e's)
# does not install and build again.
mkdir -p .cache/make && touch .cache/make/setup.stamp
# SETUP_BINARIES=0: only Node, the dependencies and the build (the Makefile's
# workflow targets that start no servers of their own). Otherwise the
# servers every e2e run and demo starts; SETUP_BINARIES=all (the test
# command) also the Cluster API managers and the operator, which the
# longest suites start with. Helm and the Go peer of the runtime benchmark
# are built when first used, or in the background by scripts/test.sh.
if [ "${SETUP_BINARIES:-1}" = 0 ]; then
  echo "setup took $(elapsed "$started")" >&2
  return 0 2>/dev/null || exit 0
fi
binaries=(kcp kube-apiserver kube-controller-manager etcd crossplane-otc-simulator)
[ "${SETUP_BINARIES:-1}" != all ] || binaries+=(capi-core capi-kubeadm-bootstrap capi-kubeadm-control-plane capi-dev capi-operator)
step "providing ${binaries[*]}"
"${PNPM[@]}" run --silent binaries "${binaries[@]}" >&2
# The console's browser tests (e2e/tests/console.e2e.test.ts) drive Debian's
# Chromium; without it they are skipped, saying why (and fail in CI).
if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    step "installing Chromium (Debian's package) for the console's browser tests"
    apt-get install -y --no-install-recommends chromium >&2 \
      || { apt-get update >&2 && apt-get install -y --no-install-recommends chromium >&2; } \
      || echo "setup: chromium could not be installed; the console's browser tests will be skipped" >&2
  else
    echo "setup: no chromium, and no apt-get as root to install it; the console's browser tests will be skipped" >&2
  fi
fi
echo "setup took $(elapsed "$started")" >&2
