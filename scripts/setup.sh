# Sourced by test.sh and demo.sh: brings everything a fresh machine lacks.
# Needs Node (any version with npm: an older one than the project runs on
# fetches it) and, unless KCP_BIN / KUBE_APISERVER_BIN /
# KUBE_CONTROLLER_MANAGER_BIN / ETCD_BIN / HELM_BIN (and the Cluster API
# managers' variables) or cached builds are there, Go (to build them from the
# module proxy).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PNPM_VERSION=10.34.8
# The Node the tests, the demo and the images run: the current LTS line.
NODE_VERSION=24.22.3
step() { printf '\n==> %s\n' "$*" >&2; }
elapsed() { echo "$(( $(date +%s) - $1 )) s"; }

# A machine whose Node is older gets the pinned one from the npm registry's
# node-linux-<arch> package (the nodejs.org build, binary only), kept in
# .cache/node and put first on PATH for whatever runs after this script.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt "${NODE_VERSION%%.*}" ]; then
  case "$(uname -m)" in
    x86_64) node_arch=x64 ;;
    aarch64 | arm64) node_arch=arm64 ;;
    *) echo "no Node ${NODE_VERSION} package for $(uname -m): install Node >= ${NODE_VERSION%%.*} yourself" >&2; exit 1 ;;
  esac
  node_dir="$PWD/.cache/node/$NODE_VERSION"
  node_bin="$node_dir/node_modules/node-linux-$node_arch/bin"
  if [ ! -x "$node_bin/node" ]; then
    step "fetching Node $NODE_VERSION (this machine has $(node --version 2>/dev/null || echo none))"
    npm install --silent --no-save --no-package-lock --no-audit --no-fund --prefix "$node_dir" "node-linux-$node_arch@$NODE_VERSION" >&2
  fi
  export PATH="$node_bin:$PATH"
fi
echo "Node $(node --version)" >&2

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
