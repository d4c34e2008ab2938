/**
 * Reads of the infrastructure cluster, with the console's own read-only
 * identity (--infra-kubeconfig). Called only for KubernetesClusters the
 * user's kcp identity has just read: the tenant namespace of that cluster's
 * workspace, and what is labelled with that cluster's uid, nothing wider.
 */
import { getIfPresent, HttpStatusError, isNotFound, type KubeObject, type RestClient } from "@edgeconnect/kcp-ts";
import {
  CLUSTER_API_CLUSTER,
  labelValue,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MANAGED_RESOURCE_KINDS,
  namespaceOwner,
  NODE_POOL_V3,
  TENANT_NAMESPACE_PREFIX,
  tenantNamespace,
  UID_LABEL,
  type GroupVersionKind,
  type ObservedManagedResource,
} from "@edgeconnect/provisioning";
import type { InfrastructureObjects } from "./infrastructure-tree.js";
import type { Cluster } from "./cluster-view.js";
import { REQUEST_TIMEOUT_MS } from "./user-session.js";

type Observed = KubeObject & ObservedManagedResource;

export class InfrastructureReader {
  private readonly client: RestClient;

  constructor(client: RestClient) {
    this.client = client.withTimeout(REQUEST_TIMEOUT_MS);
  }

  close(): void {
    this.client.close();
  }

  /** What the cluster `kc` of logical cluster `logicalCluster` became; errors are reported in the result, not thrown. */
  async objectsOf(kc: Cluster, logicalCluster: string): Promise<InfrastructureObjects> {
    const namespaceName = tenantNamespace(logicalCluster).name;
    try {
      const found = await getIfPresent<KubeObject>(this.client, `/api/v1/namespaces/${namespaceName}`);
      // A namespace of that name claimed by another workspace (a fingerprint collision) is not this tenant's.
      const namespace = found !== undefined && namespaceOwner(found, logicalCluster) === "ours" ? found : undefined;
      if (namespace === undefined || kc.metadata?.uid === undefined) return { namespaceName, namespace, managed: [], clusterApi: [] };
      const selector = `${UID_LABEL}=${labelValue(kc.metadata.uid)}`;
      const clusterApi = kc.spec?.providerRef?.type === "ClusterAPI";
      const [managed, clusters] = await Promise.all([
        clusterApi ? Promise.resolve([]) : Promise.all(MANAGED_RESOURCE_KINDS.map((kind) => this.listKind(kind, namespaceName, selector))).then((lists) => lists.flat()),
        clusterApi ? this.listKind(CLUSTER_API_CLUSTER, namespaceName, selector) : Promise.resolve([]),
      ]);
      return { namespaceName, namespace, managed, clusterApi: clusters };
    } catch (err) {
      return { namespaceName, namespace: undefined, managed: [], clusterApi: [], error: describeInfraFailure(err) };
    }
  }

  /** The node pools of the clusters with these uids (the platform view's SoldOut check). */
  async nodePoolsOf(uids: ReadonlySet<string>): Promise<Observed[]> {
    const wanted = new Set([...uids].map(labelValue));
    const pools = await this.listKind(NODE_POOL_V3, undefined, `${MANAGED_BY_LABEL}=${MANAGED_BY}`);
    return pools.filter((pool) => wanted.has(pool.metadata?.labels?.[UID_LABEL] ?? ""));
  }

  /** The provider-controller's tenant namespaces (`kcp-*`), for the platform view's orphan check. */
  async tenantNamespaces(): Promise<KubeObject[]> {
    const list = await this.client.list("/api/v1/namespaces", { query: { labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY}` } });
    return list.items.filter((ns) => ns.metadata?.name?.startsWith(TENANT_NAMESPACE_PREFIX) === true);
  }

  /** Objects of `kind` in `namespace` (all when undefined) matching `selector`; none when the kind is not served here. */
  private async listKind(kind: GroupVersionKind, namespace: string | undefined, selector: string): Promise<Observed[]> {
    const path = `/apis/${kind.group}/${kind.version}${namespace === undefined ? "" : `/namespaces/${namespace}`}/${kind.plural}`;
    try {
      const list = await this.client.list<Observed>(path, { query: { labelSelector: selector } });
      return list.items.map((item) => ({ ...item, kind: kind.kind }));
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
  }
}

export function describeInfraFailure(err: unknown): string {
  return err instanceof HttpStatusError ? `the infrastructure cluster answered HTTP ${err.status}` : "the infrastructure cluster did not answer";
}
