# Sourced from the repository root (by setup.sh and scripts/make-target.sh):
# puts Node >= the project's LTS line first on PATH.
# The Node the tests, the demo and the images run: the current LTS line.
NODE_VERSION=24.22.3
step() { printf '\n==> %s\n' "$*" >&2; }

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
[ "${NODE_QUIET:-0}" = 1 ] || echo "Node $(node --version)" >&2

