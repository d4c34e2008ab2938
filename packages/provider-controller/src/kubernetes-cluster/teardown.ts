/**
 * Teardown of an OTC cluster behind the finalizer, child before parent and each stage
 * confirmed gone (by the API server, not the cache) before the next is
 * asked: node pools, the CCE cluster, its EIP and key pair, the subnet,
 * the VPC. Only then the credentials Crossplane needed for those deletions
 * (deleting them first would leave the provider unable to delete anything),
 * and last the tenant namespace, once nothing of the tenant is left in it
 * (a namespace deleted around managed resources hangs in Terminating).
 *
 * A namespace that is not the tenant's is never touched: nothing of ours
 * can be in it.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import { clusterObjectNames, CROSSPLANE_PROVIDER_CONFIG, namespaceOwner, tenantNamespace } from "@edgeconnect/provisioning";
import type { DeepReadonly } from "@edgeconnect/runtime";
import { deleteKubeconfig } from "./kubeconfig-secret.js";
import { ownedResources, TEARDOWN_STAGES } from "./observed-infrastructure.js";
import { SECRETS } from "../infrastructure/infrastructure-cluster.js";
import type { Pass, ProvisionContext } from "./provision.js";
import type { StatusReport } from "./status-report.js";
import { releaseNamespace } from "./tenant-namespace.js";

/** How soon a stage still deleting is looked at again; watch events usually come first. */
export const STAGE_POLL_MS = 2_000;

const STAGE_NAMES = ["the node pool", "the CCE cluster", "the EIP and key pair", "the subnet", "the VPC"];

export async function teardown(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport): Promise<{ requeueAfterMs: number } | undefined> {
  const { request } = pass;
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  await deleteKubeconfig(pass, names.kubeconfigSecret);
  const namespace = tenantNamespace(request.cluster);
  const existing = await pass.writes.getNamespace(namespace.name);
  if (existing === undefined || namespaceOwner(existing, request.cluster) !== "ours") return undefined;

  for (const [index, stage] of TEARDOWN_STAGES.entries()) {
    const remaining = ownedResources(context.infra, namespace.name, request, stage);
    let gone = true;
    for (const { kind, obj } of remaining) gone = (await pass.writes.delete(kind, namespace.name, obj.metadata?.name ?? "")) && gone;
    if (!gone) {
      report.deleting(`deleting ${STAGE_NAMES[index] ?? "cloud resources"}`);
      await report.flush(pass);
      return { requeueAfterMs: STAGE_POLL_MS };
    }
  }

  const configName = kc.spec?.providerRef.configRef?.name;
  if (configName !== undefined) {
    await pass.writes.delete(CROSSPLANE_PROVIDER_CONFIG, namespace.name, names.providerConfig(request.namespace, configName));
    await pass.writes.delete(SECRETS, namespace.name, names.credentialsSecret(request.namespace, configName));
  }
  await pass.writes.delete(SECRETS, namespace.name, names.keypair);
  await releaseNamespace(context, pass, namespace.name);
  return undefined;
}
