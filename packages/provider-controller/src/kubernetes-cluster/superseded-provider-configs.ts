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
/**
 * How long a ProviderConfig this process applied may be missing from the
 * cache: far longer than a watch event takes to arrive. Until then the
 * cache cannot tell that a config the cluster no longer uses is gone.
 */
const CACHE_LAG_MS = 60_000;
/** Clusters that applied a ProviderConfig within CACHE_LAG_MS: as many as can be reconciled in that time, and more. */
const MAX_RECENT = 100_000;

/** What the caches say of a cluster's ProviderConfigs. */
export interface CachedConfigs {
  /** The names the cluster's cached managed resources point at. */
  readonly referenced: readonly string[];
  /** The names of the cluster's cached ProviderConfigs. */
  readonly providerConfigs: readonly string[];
}

export class SupersededProviderConfigs {
  private readonly settled = new LRUCache<string, true>({ max: MAX_REMEMBERED });
  /** By uid: the ProviderConfig names this process applied for the cluster lately. */
  private readonly recent = new LRUCache<string, Set<string>>({ max: MAX_RECENT, ttl: CACHE_LAG_MS });

  /**
   * Releases the cluster's ProviderConfigs other than `current` that no
   * managed resource uses any more; `current` is the one the pass applied.
   * The API server is asked only when the caches show something other
   * than `current`, or when this process applied another name so lately
   * that the cache may not show it yet. So a process that starts beside
   * thousands of settled clusters lists nothing for them: its caches
   * listed every ProviderConfig made before it started.
   */
  async release(writes: InfrastructureWrites, namespace: string, request: Request, uid: string, current: string, cached: CachedConfigs): Promise<void> {
    const key = `${uid}/${current}`;
    const appliedLately = this.noteApplied(uid, current);
    const onlyCurrent = (names: readonly string[]): boolean => names.every((name) => name === current);
    if (onlyCurrent(cached.referenced) && (this.settled.has(key) || (onlyCurrent(cached.providerConfigs) && onlyCurrent(appliedLately)))) {
      this.settled.set(key, true);
      return;
    }
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

  /** Records `current` as applied now; returns every name applied for the cluster within CACHE_LAG_MS, `current` included. */
  private noteApplied(uid: string, current: string): readonly string[] {
    const names = this.recent.get(uid) ?? new Set<string>();
    names.add(current);
    // A set (re-set to restart its time): the last of several names applied lately must outlive the CACHE_LAG_MS of all of them.
    this.recent.set(uid, names);
    return [...names];
  }
}
