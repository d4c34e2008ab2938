/**
 * What the controller watches in tenants' workspaces through the APIExport's
 * virtual workspace: our three kinds and the claimed Secrets. The handles
 * are made once by the manager (with its event handlers) and passed to the
 * reconcilers, whose listers they key.
 */
import type { KubernetesCluster, MachineCapabilities, ProviderConfig } from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { EventHandlers, WatchedResource } from "@edgeconnect/runtime";

export const PLATFORM_API = "/apis/platform.edgeconnect.eu/v1alpha1";

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export interface TenantResources {
  readonly clusters: WatchedResource<KubernetesCluster & KubeObject>;
  readonly providerConfigs: WatchedResource<ProviderConfig & KubeObject>;
  readonly capabilities: WatchedResource<MachineCapabilities & KubeObject>;
  readonly secrets: WatchedResource<Secret>;
}

export interface TenantHandlers {
  readonly clusters?: EventHandlers<KubernetesCluster & KubeObject>;
  readonly providerConfigs?: EventHandlers<ProviderConfig & KubeObject>;
  readonly capabilities?: EventHandlers<MachineCapabilities & KubeObject>;
  readonly secrets?: EventHandlers<Secret>;
}

export function tenantResources(handlers: TenantHandlers): TenantResources {
  const watched = <T extends KubeObject>(name: string, path: string, h: EventHandlers<T> | undefined): WatchedResource<T> => ({
    name,
    path: `/clusters/*${path}`,
    ...(h ? { handlers: h } : {}),
  });
  return {
    clusters: watched("kubernetesclusters", `${PLATFORM_API}/kubernetesclusters`, handlers.clusters),
    providerConfigs: watched("providerconfigs", `${PLATFORM_API}/providerconfigs`, handlers.providerConfigs),
    capabilities: watched("machinecapabilities", `${PLATFORM_API}/machinecapabilities`, handlers.capabilities),
    secrets: watched("secrets", "/api/v1/secrets", handlers.secrets),
  };
}

export function kubernetesClusterPath(namespace: string, name: string): string {
  return `${PLATFORM_API}/namespaces/${namespace}/kubernetesclusters/${name}`;
}

export function providerConfigPath(namespace: string, name: string): string {
  return `${PLATFORM_API}/namespaces/${namespace}/providerconfigs/${name}`;
}
