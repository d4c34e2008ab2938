/**
 * What init requires of the cluster and does not install itself, as pure
 * functions over manifests: cert-manager, which the Cluster API Operator's
 * release manifest needs for its webhook's certificate (its Issuer and
 * Certificate, and the `cert-manager.io/inject-ca-from` annotations; the
 * operator's docs list cert-manager as its prerequisite), and, for an
 * operator installed by someone else, how to recognise it.
 */
import { BOOTSTRAP_PROVIDER, CONTROL_PLANE_PROVIDER, CORE_PROVIDER, INFRASTRUCTURE_PROVIDER } from "@edgeconnect/capi-provider-api";
import type { KubeObject } from "@edgeconnect/kcp-ts";

const CERT_MANAGER_GROUP = "cert-manager.io";

export interface KindRef {
  readonly apiVersion: string;
  readonly kind: string;
}

/** The cert-manager kinds a manifest has objects of, each once. */
export function certManagerKinds(objects: readonly KubeObject[]): KindRef[] {
  const kinds = new Map<string, KindRef>();
  for (const { apiVersion = "", kind = "" } of objects) {
    if (apiVersion.split("/")[0] === CERT_MANAGER_GROUP) kinds.set(`${apiVersion} ${kind}`, { apiVersion, kind });
  }
  return [...kinds.values()];
}

/** Why init stops when the operator needs cert-manager kinds the cluster does not serve, and what to do. */
export function certManagerMissing(needed: readonly KindRef[], missing: readonly KindRef[]): string {
  const list = (kinds: readonly KindRef[]): string => kinds.map((k) => `${k.kind} (${k.apiVersion})`).join(", ");
  return (
    `the Cluster API Operator's manifest needs cert-manager for its webhook certificate (${list(needed)}), ` +
    `but this cluster serves no ${list(missing)} and the init configuration has no certManager source: ` +
    "install cert-manager first, or set certManager (url, file or configMap of cert-manager's release manifest) in the init configuration"
  );
}

/** The operator's CRDs for the kinds this provider writes. */
export const OPERATOR_CRDS: readonly string[] = [CORE_PROVIDER, INFRASTRUCTURE_PROVIDER, BOOTSTRAP_PROVIDER, CONTROL_PLANE_PROVIDER].map(
  (resource) => `${resource.plural}.${resource.group}`,
);

/**
 * The label on the operator's Deployment, in its release manifest (the
 * kustomize labels of config/default) and its Helm chart alike, whatever
 * the release's name and namespace.
 */
export const OPERATOR_DEPLOYMENT_SELECTOR = "clusterctl.cluster.x-k8s.io/core=capi-operator";
