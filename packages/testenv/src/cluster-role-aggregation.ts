/**
 * A stand-in for kube-controller-manager's ClusterRole aggregation
 * controller, which this environment does not run: kube-apiserver
 * bootstraps `view`, `edit` and `admin` with an aggregationRule only, and
 * their rules stay empty until something fills them from the ClusterRoles
 * the rule selects. Run once after start (and again after adding roles to
 * aggregate); it does what the controller does, for matchLabels selectors.
 */
import type { KubeObject, RestClient } from "@edgeconnect/kcp-ts";

const CLUSTER_ROLES = "/apis/rbac.authorization.k8s.io/v1/clusterroles";

interface ClusterRole extends KubeObject {
  rules?: unknown[];
  aggregationRule?: { clusterRoleSelectors?: { matchLabels?: Record<string, string> }[] };
}

export async function aggregateClusterRoles(client: RestClient): Promise<void> {
  const roles = (await client.list<ClusterRole>(CLUSTER_ROLES)).items;
  for (const role of roles) {
    const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
    if (selectors.length === 0) continue;
    const selected = roles.filter(
      (candidate) =>
        candidate.aggregationRule === undefined &&
        selectors.some((selector) => Object.entries(selector.matchLabels ?? {}).every(([key, value]) => candidate.metadata?.labels?.[key] === value)),
    );
    const rules = selected.flatMap((candidate) => candidate.rules ?? []);
    await client.request("PATCH", `${CLUSTER_ROLES}/${role.metadata?.name ?? ""}`, { body: { rules }, contentType: "application/merge-patch+json" });
  }
}
