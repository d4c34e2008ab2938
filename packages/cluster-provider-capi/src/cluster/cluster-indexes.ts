/**
 * How a ProviderConfig finds the openMCP Clusters it serves without a scan
 * over every Cluster: store indexes from a ClusterProfile to its config, and
 * from a Cluster to its profile; and when a config's change is news to its
 * Clusters although only its status changed.
 */
import { findCondition, type DeepReadonly, type Indexer } from "@edgeconnect/runtime";
import type { ClusterProfile, OpenMcpCluster, ProviderConfig } from "../config/provider-config-reconciler.js";

/** On the ClusterProfile store: `spec.providerConfigRef.name`. */
export const PROFILES_BY_CONFIG = "provider-config";
export const profilesByConfig: Indexer<ClusterProfile> = (profile) => {
  const name = profile.spec?.providerConfigRef.name;
  return name === undefined ? [] : [name];
};

/** On the Cluster store: `spec.profile`. */
export const CLUSTERS_BY_PROFILE = "profile";
export const clustersByProfile: Indexer<OpenMcpCluster> = (cluster) => {
  const profile = cluster.spec?.profile;
  return profile === undefined ? [] : [profile];
};

/**
 * Whether a config's providers have just become ready: its Clusters waiting
 * for kinds those providers serve try again. The config controller reports
 * it in its status only, which the config's other watches leave out.
 */
export function providersBecameReady(old: DeepReadonly<ProviderConfig>, current: DeepReadonly<ProviderConfig>): boolean {
  const ready = (config: DeepReadonly<ProviderConfig>): boolean => findCondition(config.status?.conditions, "ProvidersReady")?.status === "True";
  return ready(current) && !ready(old);
}
