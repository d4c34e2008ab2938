/**
 * The template sets a platform offers for ClusterAPI clusters: the
 * ProviderConfigs of the Cluster API cluster provider
 * (`capi.clusters.openmcp.cloud`, cluster-scoped) on the infrastructure
 * cluster, one format for both products. The provider-controller reads
 * their `kubernetesVersions` and `template`; their `providers` are the
 * cluster provider's config controller's business. The platform team's
 * objects: watched, never written.
 */
import { collectionPath, PROVIDER_CONFIG, type ProviderConfigV1alpha1 } from "@edgeconnect/capi-provider-api";
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";
import { joinKey, Reflector, Store, type DeepReadonly, type EventHandlers, type ReflectorLogger } from "@edgeconnect/runtime";

export type TemplateSet = ProviderConfigV1alpha1 & KubeObject;

export interface TemplateSets {
  get(name: string): DeepReadonly<TemplateSet> | undefined;
  /** Sorted, for messages that say what is offered. */
  names(): string[];
}

/** A cache of every template set, telling `handlers` of changes; the reflector is the manager's to run. */
export function watchTemplateSets(client: RestClient, handlers: EventHandlers<TemplateSet>, logger?: ReflectorLogger): { sets: TemplateSets; reflector: Reflector<TemplateSet> } {
  const store = new Store<TemplateSet>();
  const reflector = new Reflector<TemplateSet>({ client, path: collectionPath(PROVIDER_CONFIG), store, handlers, ...(logger ? { logger } : {}) });
  return {
    sets: {
      get: (name) => store.get(joinKey({ cluster: "", namespace: "", name })),
      names: () =>
        store
          .list()
          .map((set) => set.metadata?.name ?? "")
          .sort(),
    },
    reflector,
  };
}
