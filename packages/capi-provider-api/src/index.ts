/**
 * @edgeconnect/capi-provider-api: the APIs the Cluster API cluster provider
 * speaks. Our ProviderConfig (`capi.clusters.openmcp.cloud`, CRD in `crds/`,
 * the source of truth) and, generated from the CRDs of the pinned modules,
 * openMCP's kinds, the Cluster API Operator's provider kinds and Cluster
 * API's Cluster; plus each kind's identity for building API paths and the
 * paths of our CRD files.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { ResourcePathParts } from "@edgeconnect/api";
import { CAPI_PROVIDER_CRD_VERSIONS } from "./generated/resources.js";

export type * from "./generated/capi.clusters.openmcp.cloud-v1alpha1.js";
export type * from "./generated/cluster.x-k8s.io-v1beta2.js";
export type * from "./generated/clusters.openmcp.cloud-v1alpha1.js";
export type * from "./generated/openmcp.cloud-v1alpha1.js";
export type * from "./generated/operator.cluster.x-k8s.io-v1alpha2.js";
export { CAPI_PROVIDER_API_SOURCES, CAPI_PROVIDER_CRD_VERSIONS } from "./generated/resources.js";
export { collectionPath, objectPath } from "@edgeconnect/api";

/** A kind with its apiVersion, ready for `collectionPath`/`objectPath` and for objects' `apiVersion`/`kind`. */
export interface ApiResource extends ResourcePathParts {
  readonly apiVersion: string;
}

function resource(group: string, kind: string): ApiResource {
  const row = CAPI_PROVIDER_CRD_VERSIONS.find((entry) => entry.group === group && entry.kind === kind);
  if (row === undefined) throw new TypeError(`no generated kind ${kind} in ${group}`);
  return {
    group,
    version: row.version,
    apiVersion: `${group}/${row.version}`,
    kind,
    plural: row.plural,
    scope: row.namespaced ? "Namespaced" : "Cluster",
  };
}

export const PROVIDER_CONFIG = resource("capi.clusters.openmcp.cloud", "ProviderConfig");

export const OPENMCP_CLUSTER = resource("clusters.openmcp.cloud", "Cluster");
export const CLUSTER_PROFILE = resource("clusters.openmcp.cloud", "ClusterProfile");
export const CLUSTER_REQUEST = resource("clusters.openmcp.cloud", "ClusterRequest");
export const ACCESS_REQUEST = resource("clusters.openmcp.cloud", "AccessRequest");
export const CLUSTER_PROVIDER = resource("openmcp.cloud", "ClusterProvider");

export const CORE_PROVIDER = resource("operator.cluster.x-k8s.io", "CoreProvider");
export const INFRASTRUCTURE_PROVIDER = resource("operator.cluster.x-k8s.io", "InfrastructureProvider");
export const BOOTSTRAP_PROVIDER = resource("operator.cluster.x-k8s.io", "BootstrapProvider");
export const CONTROL_PLANE_PROVIDER = resource("operator.cluster.x-k8s.io", "ControlPlaneProvider");

export const CAPI_CLUSTER = resource("cluster.x-k8s.io", "Cluster");

/**
 * Our CRD files, which `init` installs: next to `src/` and `dist/` alike,
 * since the package ships `crds/`.
 */
export const CRD_FILES: readonly string[] = [fileURLToPath(new URL("../crds/capi.clusters.openmcp.cloud_providerconfigs.yaml", import.meta.url))];
