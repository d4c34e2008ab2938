#!/usr/bin/env bash
# Renders the resources that deploy/otc-cloud-controller-manager/samples/
# cluster-resource-set.yaml delivers to workload clusters, and the set itself,
# as one multi-document YAML on stdout for `kubectl apply -f -` on the
# management cluster:
#   ConfigMap otc-ccm              the chart's workload (cloudConfig.create=false),
#                                  so it holds no credentials and suits every cluster
#   Secret otc-ccm-cloud-config    the chart's cloud.conf Secret, wrapped in a
#                                  Secret of type addons.cluster.x-k8s.io/resource-set
#   ClusterResourceSet otc-ccm     the sample, selecting clusters labelled ccm=otc
#
# Usage: scripts/render-ccm-crs.sh [-n NAMESPACE] [-t TARGET_NAMESPACE] [-- HELM_ARGS...]
#   -n  namespace of the set, its resources and the selected Clusters (default: default)
#   -t  namespace in the workload clusters (default: kube-system)
#   HELM_ARGS go to both renders, e.g. -f cloud-values.yaml or
#   --set-string cloudConfig.accessKey=... (see the chart's README.md).
# Helm: $HELM_BIN, else helm on PATH, else the repository's pinned build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chart="$root/deploy/otc-cloud-controller-manager"

namespace=default
target=kube-system
while [ $# -gt 0 ]; do
  case "$1" in
    -n) namespace="$2"; shift 2 ;;
    -t) target="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "render-ccm-crs.sh: unknown argument $1 (helm arguments go after --)" >&2; exit 2 ;;
  esac
done

helm="${HELM_BIN:-}"
if [ -z "$helm" ]; then
  helm="$(command -v helm || true)"
fi
if [ -z "$helm" ]; then
  # Prints "helm <version>: <path> (<source>, <seconds> s)".
  helm="$(node "$root/packages/testenv/dist/cli/ensure-binaries.js" helm | sed -n 's/^helm [^:]*: \(.*\) ([a-z]*, [0-9.]* s)$/\1/p')"
fi
[ -n "$helm" ] || { echo "render-ccm-crs.sh: no helm: set HELM_BIN or run \`pnpm binaries helm\`" >&2; exit 1; }

release=otc-cloud-controller-manager
workload="$("$helm" template "$release" "$chart" --namespace "$target" "$@" --set cloudConfig.create=false)"
secret="$("$helm" template "$release" "$chart" --namespace "$target" "$@" --set cloudConfig.create=true --show-only templates/secret.yaml)"

cat <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: otc-ccm
  namespace: $namespace
data:
  otc-ccm.yaml: |
$(printf '%s\n' "$workload" | sed 's/^/    /')
---
apiVersion: v1
kind: Secret
metadata:
  name: otc-ccm-cloud-config
  namespace: $namespace
type: addons.cluster.x-k8s.io/resource-set
data:
  otc-cloud-config.yaml: $(printf '%s\n' "$secret" | base64 | tr -d '\n')
---
YAML
sed "s/^  namespace: default\$/  namespace: $namespace/" "$chart/samples/cluster-resource-set.yaml"
