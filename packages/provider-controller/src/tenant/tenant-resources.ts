/**
 * What the controller watches in tenants' workspaces through the APIExport's
 * virtual workspace: our three kinds and the claimed Secrets that carry
 * SECRET_LABEL (the claim's default selector; selected here too, so that a
 * binding that accepted every Secret still shows us only those). The handles
 * are made once by the manager (with its event handlers) and passed to the
 * reconcilers, whose listers they key.
 */
import {
  collectionPath,
  KUBERNETES_CLUSTER_RESOURCE,
  MACHINE_CAPABILITIES_RESOURCE,
  objectPath,
  PROVIDER_CONFIG_RESOURCE,
  SECRET_LABEL,
  type KubernetesCluster,
  type MachineCapabilities,
  type PlatformResource,
  type ProviderConfig,
} from "@edgeconnect/api";
import type { KubeObject } from "@edgeconnect/kcp-ts";
import type { EventHandlers, WatchedResource } from "@edgeconnect/runtime";

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
  const watched = <T extends KubeObject>(name: string, path: string, h: EventHandlers<T> | undefined, labelSelector?: string): WatchedResource<T> => ({
    name,
    path: `/clusters/*${path}`,
    ...(labelSelector === undefined ? {} : { labelSelector }),
    ...(h ? { handlers: h } : {}),
  });
  const ours = <T extends KubeObject>(resource: PlatformResource, h: EventHandlers<T> | undefined): WatchedResource<T> => watched(resource.plural, collectionPath(resource), h);
  return {
    clusters: ours(KUBERNETES_CLUSTER_RESOURCE, handlers.clusters),
    providerConfigs: ours(PROVIDER_CONFIG_RESOURCE, handlers.providerConfigs),
    capabilities: ours(MACHINE_CAPABILITIES_RESOURCE, handlers.capabilities),
    secrets: watched("secrets", "/api/v1/secrets", handlers.secrets, `${SECRET_LABEL.key}=${SECRET_LABEL.value}`),
  };
}

export function kubernetesClusterPath(namespace: string, name: string): string {
  return objectPath(KUBERNETES_CLUSTER_RESOURCE, namespace, name);
}

export function providerConfigPath(namespace: string, name: string): string {
  return objectPath(PROVIDER_CONFIG_RESOURCE, namespace, name);
}
