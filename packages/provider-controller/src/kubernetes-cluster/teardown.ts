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
import { clusterObjectNames, CROSSPLANE_PROVIDER_CONFIG, tenantNamespace } from "@edgeconnect/provisioning";
import type { DeepReadonly } from "@edgeconnect/runtime";
import { deleteKubeconfig } from "./kubeconfig-secret.js";
import { ownedResources, TEARDOWN_STAGES } from "./observed-infrastructure.js";
import { SECRETS } from "../infrastructure/infrastructure-cluster.js";
import type { Pass, ProvisionContext } from "./provision.js";
import type { StatusReport } from "./status-report.js";
import { ownsNamespace, releaseNamespace } from "./tenant-namespace.js";

/** How soon a stage still deleting is looked at again; watch events usually come first. */
export const STAGE_POLL_MS = 2_000;

const STAGE_NAMES = ["the node pool", "the CCE cluster", "the EIP and key pair", "the subnet", "the VPC"];

/**
 * A teardown step still waiting for something to go, for every provider
 * type: the status saying what (`message`) is written here, since the
 * reconciler writes none for a cluster being deleted (it may be gone once
 * the finalizer is), and the step is looked at again soon.
 */
export async function stillDeleting(pass: Pass, report: StatusReport, message: string): Promise<{ requeueAfterMs: number }> {
  report.deleting(message);
  await report.flush(pass);
  return { requeueAfterMs: STAGE_POLL_MS };
}

export async function teardown(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport): Promise<{ requeueAfterMs: number } | undefined> {
  const { request } = pass;
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  await deleteKubeconfig(pass, names.kubeconfigSecret);
  const namespace = tenantNamespace(request.cluster);
  if (!(await ownsNamespace(pass.writes, namespace.name, request.cluster))) return undefined;

  for (const [index, stage] of TEARDOWN_STAGES.entries()) {
    const remaining = ownedResources(context.infra, namespace.name, request, stage);
    let gone = true;
    for (const { kind, obj } of remaining) gone = (await pass.writes.delete(kind, namespace.name, obj.metadata?.name ?? "")) && gone;
    if (!gone) return stillDeleting(pass, report, `deleting ${STAGE_NAMES[index] ?? "cloud resources"}`);
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
