/**
 * What an openMCP Cluster says of its Cluster API Cluster, beyond the
 * conditions: the fields openMCP's Cluster API leaves to the provider
 * (openmcp-operator `api/clusters/v1alpha1/cluster_types.go`:
 * `status.providerStatus`, a free-form object, and `status.endpoints` with
 * the well-known names `apiserver-external` and `apiserver-internal`), and
 * the annotation `clusters.openmcp.cloud/providerinfo` shown by
 * `kubectl get clusters -o wide` (`constants.go`). As cluster-provider-kind
 * does with its `ClusterStatus`, the provider status is typed by an
 * apiVersion and kind of this provider's group.
 */
import type { ClusterV1alpha1Endpoint } from "@edgeconnect/capi-provider-api";
import { CAPI_CLUSTER } from "@edgeconnect/capi-provider-api";
import type { ConditionUpdate, DeepReadonly } from "@edgeconnect/runtime";
import { APISERVER_ENDPOINT, K8S_VERSION_LABEL } from "../openmcp/constants.js";
import type { CapiCluster } from "./cluster-reconciler.js";

export const PROVIDER_STATUS_API_VERSION = "capi.clusters.openmcp.cloud/v1alpha1";

export interface CapiProviderStatus {
  readonly apiVersion: typeof PROVIDER_STATUS_API_VERSION;
  readonly kind: "ClusterStatus";
  /** The Cluster API Cluster this Cluster is. */
  readonly clusterApiCluster: { readonly apiVersion: string; readonly kind: string; readonly namespace: string; readonly name: string };
  /** `spec.topology.classRef.name`, for a Cluster made from a ClusterClass. */
  readonly clusterClass?: string;
  /** `spec.infrastructureRef.kind`, for a Cluster made from template objects. */
  readonly infrastructureKind?: string;
  /** Cluster API's `status.phase`. */
  readonly phase?: string;
}

export function providerStatusOf(capi: DeepReadonly<CapiCluster>): CapiProviderStatus {
  const clusterClass = capi.spec?.topology?.classRef?.name;
  const infrastructureKind = capi.spec?.infrastructureRef?.kind;
  const phase = capi.status?.phase;
  return {
    apiVersion: PROVIDER_STATUS_API_VERSION,
    kind: "ClusterStatus",
    clusterApiCluster: { apiVersion: CAPI_CLUSTER.apiVersion, kind: CAPI_CLUSTER.kind, namespace: capi.metadata.namespace ?? "", name: capi.metadata.name ?? "" },
    ...(clusterClass === undefined ? {} : { clusterClass }),
    ...(infrastructureKind === undefined ? {} : { infrastructureKind }),
    ...(phase === undefined ? {} : { phase }),
  };
}

/**
 * The text of the providerinfo column: what the Cluster is made of, which
 * changes only with its template (Cluster API's phase would rewrite the
 * Cluster's metadata on every step; it is in the provider status).
 */
export function providerInfoOf(capi: DeepReadonly<CapiCluster>): string {
  const clusterClass = capi.spec?.topology?.classRef?.name;
  if (clusterClass !== undefined) return `ClusterClass ${clusterClass}`;
  const infrastructure = capi.spec?.infrastructureRef?.kind;
  return infrastructure === undefined ? "Cluster API" : `Cluster API on ${infrastructure}`;
}

/**
 * `apiserver-external` from the Cluster API Cluster's `controlPlaneEndpoint`;
 * `apiserver-internal` from the kubeconfig Cluster API writes for the
 * management cluster (the platform), which is how the platform itself
 * reaches the API server. Each only once known.
 */
export function endpointsOf(external: string | undefined, internal: string | undefined): ClusterV1alpha1Endpoint[] {
  return [
    ...(external === undefined ? [] : [{ name: APISERVER_ENDPOINT.External, url: external }]),
    ...(internal === undefined ? [] : [{ name: APISERVER_ENDPOINT.Internal, url: internal }]),
  ];
}

/**
 * The Kubernetes version a Cluster runs, once its Cluster API Cluster exists:
 * the Cluster API Cluster's `spec.topology.version`, or for a Cluster of
 * template objects (whose version is in provider kinds) the version label
 * this controller set on the openMCP Cluster when it applied it.
 */
export function runningVersion(capi: DeepReadonly<CapiCluster> | undefined, labels: Readonly<Record<string, string>> | undefined): string | undefined {
  if (capi === undefined) return undefined;
  return capi.spec?.topology?.version ?? labels?.[K8S_VERSION_LABEL];
}

/**
 * This provider configures a Cluster by its profile's ProviderConfig only:
 * `spec.clusterConfigs` name provider-specific objects (openMCP leaves their
 * kind to the provider), and this provider has none, so a Cluster that
 * names some is told that they are not applied.
 */
export function clusterConfigsCondition(refs: readonly { readonly name?: string }[] | undefined): ConditionUpdate {
  if (refs === undefined || refs.length === 0) {
    return { type: "ClusterConfigsApplied", status: "True", reason: "NoneRequested", message: "spec.clusterConfigs names none" };
  }
  return {
    type: "ClusterConfigsApplied",
    status: "False",
    reason: "ClusterConfigsNotSupported",
    message: `this provider applies no cluster configs, so ${refs.map((r) => r.name ?? "").join(", ")} in spec.clusterConfigs are not applied; remove them, and configure Clusters through the ClusterProfile's ProviderConfig`,
  };
}
