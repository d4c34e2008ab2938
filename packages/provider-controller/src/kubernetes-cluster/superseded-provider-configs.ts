/**
 * Crossplane ProviderConfigs of a cluster that its managed resources no
 * longer use, and their credentials Secrets: left behind when the
 * ProviderConfig's name changed (this controller once named it without
 * the logical cluster, which crossplane-runtime v2.0.0's usage counting
 * across namespaces turned into a cross-tenant wedge) or when the tenant
 * pointed the cluster at another of its ProviderConfigs.
 *
 * The provisioning pass applies the current ProviderConfig and re-points
 * every managed resource at it (server-side apply; Crossplane moves the
 * resource's usage to the new config on its next connect, and no cloud
 * resource is touched). What the old ones held is released here once live
 * lists show no managed resource of the cluster still names them: first
 * the credentials (nothing reads them then), then the ProviderConfig, so
 * a crash in between leaves a ProviderConfig that the next pass finds
 * again, never a Secret nobody can find.
 */
import type { KubeObject } from "@edgeconnect/kcp-ts";
import { CROSSPLANE_PROVIDER_CONFIG, MANAGED_RESOURCE_KINDS } from "@edgeconnect/provisioning";
import type { Request } from "@edgeconnect/runtime";
import { LRUCache } from "lru-cache";
import { SECRETS, type InfrastructureWrites } from "../infrastructure/infrastructure-cluster.js";
import { ownedResources } from "./observed-infrastructure.js";

interface ProviderConfigObject extends KubeObject {
  spec?: { credentials?: { secretRef?: { name?: string } } };
}

interface ManagedObject extends KubeObject {
  spec?: { providerConfigRef?: { name?: string } };
}

/** Clusters whose sweep found nothing left, by uid and current ProviderConfig: bounded, and a miss only costs one more LIST. */
const MAX_REMEMBERED = 10_000;

export class SupersededProviderConfigs {
  private readonly settled = new LRUCache<string, true>({ max: MAX_REMEMBERED });

  /**
   * Releases the cluster's ProviderConfigs other than `current` that no
   * managed resource uses any more. `referenced` are the ProviderConfig
   * names the cached managed resources name: a name other than `current`
   * there, or a cluster not yet settled in this process, asks the API
   * server; otherwise nothing is listed.
   */
  async release(writes: InfrastructureWrites, namespace: string, request: Request, uid: string, current: string, referenced: readonly string[]): Promise<void> {
    const key = `${uid}/${current}`;
    if (this.settled.has(key) && referenced.every((name) => name === current)) return;
    const configs = (await ownedResources(writes, namespace, request, [CROSSPLANE_PROVIDER_CONFIG])).map(({ obj }) => obj as ProviderConfigObject).filter((pc) => pc.metadata?.name !== current);
    if (configs.length === 0) {
      this.settled.set(key, true);
      return;
    }
    const resources = await ownedResources(writes, namespace, request, MANAGED_RESOURCE_KINDS);
    const inUse = new Set(resources.map(({ obj }) => (obj as ManagedObject).spec?.providerConfigRef?.name));
    let left = 0;
    for (const pc of configs) {
      const name = pc.metadata?.name ?? "";
      if (inUse.has(name)) {
        left++;
        continue;
      }
      const secret = pc.spec?.credentials?.secretRef?.name;
      // The current config's credentials are named like it (clusterObjectNames): never those.
      if (secret !== undefined && secret !== current) await writes.delete(SECRETS, namespace, secret);
      // Gone at once, or when Crossplane has moved the last usage to the current config (its in-use finalizer).
      if (!(await writes.delete(CROSSPLANE_PROVIDER_CONFIG, namespace, name))) left++;
    }
    if (left === 0) this.settled.set(key, true);
  }
}
