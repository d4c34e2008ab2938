# Sourced by test.sh and demo.sh: brings everything a fresh machine lacks.
# Needs Node >= 20.19 and, unless KCP_BIN / KUBE_APISERVER_BIN /
# KUBE_CONTROLLER_MANAGER_BIN / ETCD_BIN / HELM_BIN (and the Cluster API
# managers' variables) or cached builds are there, Go (to build them from the
# module proxy).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PNPM_VERSION=10.34.8
step() { printf '\n==> %s\n' "$*" >&2; }
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

node -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    console.error(`Node ${process.versions.node} is too old: this project needs Node >= 20.19`);
    process.exit(1);
  }'

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
step "providing kcp, kube-apiserver, kube-controller-manager, etcd, helm, the Cluster API managers and the Crossplane OTC provider simulator"
"${PNPM[@]}" run --silent binaries >&2
echo "setup took $(elapsed "$started")" >&2
