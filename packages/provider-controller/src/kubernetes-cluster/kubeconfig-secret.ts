/**
 * The tenant's kubeconfig: issued by CCE (`clustercert`, with the tenant's
 * own credentials and a lifetime we choose), written as Secret
 * `<name>-kubeconfig` next to the KubernetesCluster, owned by it, and
 * renewed well before it expires or when the cluster behind it changed.
 * The key material is registered as a credential before it is written.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { kubeconfigFromClusterCert, ownerLabels, type OtcCredentials } from "@edgeconnect/provisioning";
import { registerSecret, type DeepReadonly } from "@edgeconnect/runtime";
import { FIELD_MANAGER } from "../infrastructure/infrastructure-cluster.js";
import type { Pass, ProvisionContext, StepCondition } from "./provision.js";

export const CLUSTER_ID_ANNOTATION = "platform.edgeconnect.eu/cluster-id";
export const EXPIRES_ANNOTATION = "platform.edgeconnect.eu/expires";
export const SERVER_ANNOTATION = "platform.edgeconnect.eu/server";
export const KUBECONFIG_KEY = "kubeconfig";
/** Renew a kubeconfig this long before it expires. */
const RENEW_BEFORE_MS = 30 * 24 * 3_600_000;

export function secretPath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${namespace}/secrets/${name}`;
}

export async function ensureKubeconfig(
  context: ProvisionContext,
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  secretName: string,
  clusterId: string,
  credentials: OtcCredentials,
): Promise<{ condition: StepCondition; server?: string }> {
  const { namespace, name } = pass.request;
  const existing = pass.scope.lister(context.resources.secrets).get(namespace, secretName);
  const annotations = existing?.metadata?.annotations ?? {};
  const expires = Date.parse(annotations[EXPIRES_ANNOTATION] ?? "");
  const server = annotations[SERVER_ANNOTATION];
  if (annotations[CLUSTER_ID_ANNOTATION] === clusterId && expires - context.now().getTime() > RENEW_BEFORE_MS && server !== undefined) {
    return { condition: { status: "True", reason: "Issued", message: `Secret "${secretName}" holds the kubeconfig` }, server };
  }
  let certificate: unknown;
  try {
    certificate = await context.gateway.clusterCertificate(credentials, clusterId, context.kubeconfigValidityDays, pass.signal);
  } catch (err) {
    if (pass.signal.aborted) throw err;
    return { condition: { status: "False", reason: "KubeconfigUnavailable", message: `CCE did not issue a kubeconfig: ${err instanceof Error ? err.message : String(err)}` } };
  }
  const built = kubeconfigFromClusterCert(certificate, name);
  if (!built.ok) return { condition: { status: "False", reason: "KubeconfigUnavailable", message: built.message } };
  const data = Buffer.from(built.kubeconfig).toString("base64");
  registerSecret(built.kubeconfig);
  registerSecret(data);
  const validUntil = new Date(context.now().getTime() + context.kubeconfigValidityDays * 24 * 3_600_000).toISOString();
  const owner = kc as unknown as KubeObject;
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: secretName,
      namespace,
      labels: ownerLabels({ cluster: pass.request.cluster, namespace, name, uid: kc.metadata?.uid ?? "" }),
      annotations: { [CLUSTER_ID_ANNOTATION]: clusterId, [EXPIRES_ANNOTATION]: validUntil, [SERVER_ANNOTATION]: built.server },
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name, uid: kc.metadata?.uid, controller: true, blockOwnerDeletion: false }],
    },
    type: "Opaque",
    data: { [KUBECONFIG_KEY]: data },
  };
  await pass.scope.client.apply(secretPath(namespace, secretName), secret, FIELD_MANAGER, { signal: pass.signal });
  return { condition: { status: "True", reason: "Issued", message: `Secret "${secretName}" holds the kubeconfig` }, server: built.server };
}

/** Deletes the tenant's kubeconfig Secret; absent is fine. */
export async function deleteKubeconfig(pass: Pass, secretName: string): Promise<void> {
  try {
    await pass.scope.client.delete(secretPath(pass.request.namespace, secretName), { signal: pass.signal });
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 404)) throw err;
  }
}
