/**
 * The tenant's kubeconfig, written as Secret `<name>-kubeconfig` (key
 * `kubeconfig`) next to the KubernetesCluster and owned by it. For OTC it
 * is issued by CCE (`clustercert`, with the tenant's own credentials and a
 * lifetime we choose) and renewed well before it expires or when the
 * cluster behind it changed; for ClusterAPI it is the admin kubeconfig
 * Cluster API keeps in the tenant namespace (`clusterApiKubeconfigSecret`),
 * copied whenever it changes (Cluster API renews its
 * certificate): the tenant owns the whole cluster. The key material is
 * held as a credential, by the cluster (secret-holders.ts), before it is
 * written.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import { kubeconfigForTenant, kubeconfigFromClusterCert, ownerLabels, type OtcCredentials } from "@edgeconnect/provisioning";
import { holdSecrets, type DeepReadonly } from "@edgeconnect/runtime";
import { FIELD_MANAGER, kindPath, SECRETS } from "../infrastructure/infrastructure-cluster.js";
import { clusterSecrets } from "../tenant/secret-holders.js";
import type { Secret } from "../tenant/tenant-resources.js";
import type { Pass, ProvisionContext, StepCondition } from "./provision.js";

export const CLUSTER_ID_ANNOTATION = "platform.edgeconnect.eu/cluster-id";
export const EXPIRES_ANNOTATION = "platform.edgeconnect.eu/expires";
export const SERVER_ANNOTATION = "platform.edgeconnect.eu/server";
export const KUBECONFIG_KEY = "kubeconfig";
/** Renew a kubeconfig this long before it expires. */
const RENEW_BEFORE_MS = 30 * 24 * 3_600_000;

interface HandedBack {
  readonly condition: StepCondition;
  readonly server?: string;
}

/** OTC: the kubeconfig CCE issues for the cluster `clusterId`, renewed before it expires. */
export async function ensureKubeconfig(
  context: ProvisionContext,
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  secretName: string,
  clusterId: string,
  credentials: OtcCredentials,
): Promise<HandedBack> {
  const { name } = pass.request;
  const annotations = tenantSecret(context, pass, secretName)?.metadata?.annotations ?? {};
  const expires = Date.parse(annotations[EXPIRES_ANNOTATION] ?? "");
  const server = annotations[SERVER_ANNOTATION];
  if (annotations[CLUSTER_ID_ANNOTATION] === clusterId && expires - context.now().getTime() > RENEW_BEFORE_MS && server !== undefined) {
    return { condition: held(secretName), server };
  }
  let certificate: unknown;
  try {
    certificate = await context.gateway.clusterCertificate(credentials, clusterId, context.kubeconfigValidityDays, clusterSecrets(pass.request, "clustercert"), pass.signal);
  } catch (err) {
    if (pass.signal.aborted) throw err;
    return unavailable(`CCE did not issue a kubeconfig: ${err instanceof Error ? err.message : String(err)}`);
  }
  const built = kubeconfigFromClusterCert(certificate, name);
  if (!built.ok) return unavailable(built.message);
  const validUntil = new Date(context.now().getTime() + context.kubeconfigValidityDays * 24 * 3_600_000).toISOString();
  await writeKubeconfigSecret(pass, kc, secretName, built.kubeconfig, { [CLUSTER_ID_ANNOTATION]: clusterId, [EXPIRES_ANNOTATION]: validUntil, [SERVER_ANNOTATION]: built.server });
  return { condition: held(secretName), server: built.server };
}

/**
 * Copies Cluster API's admin kubeconfig of the cluster from Secret
 * `source` (key `source.key`, see `clusterApiKubeconfigSecret`) in the
 * tenant namespace to the tenant, renamed after the tenant's cluster
 * (`kubeconfigForTenant`); Unknown until Cluster API has written it.
 */
export async function handBackClusterApiKubeconfig(
  context: ProvisionContext,
  pass: Pass,
  kc: DeepReadonly<KubernetesCluster>,
  secretName: string,
  source: { readonly namespace: string; readonly name: string; readonly key: string },
): Promise<HandedBack> {
  const stored = await pass.writes.get<Secret>(SECRETS, source.namespace, source.name);
  const value = stored?.data?.[source.key];
  if (value === undefined || value === "") {
    return { condition: { status: "Unknown", reason: "WaitingForControlPlane", message: "the kubeconfig is handed over once the control plane is up" } };
  }
  const text = Buffer.from(value, "base64").toString("utf8");
  holdSecrets(clusterSecrets(pass.request, "capi-kubeconfig"), [value, text]);
  const built = kubeconfigForTenant(text, pass.request.name);
  if (!built.ok) return unavailable(`Cluster API's kubeconfig cannot be used: ${built.message}`);
  const current = tenantSecret(context, pass, secretName);
  if (current?.data?.[KUBECONFIG_KEY] !== Buffer.from(built.kubeconfig).toString("base64") || current.metadata?.annotations?.[SERVER_ANNOTATION] !== built.server) {
    await writeKubeconfigSecret(pass, kc, secretName, built.kubeconfig, { [SERVER_ANNOTATION]: built.server });
  }
  return { condition: held(secretName), server: built.server };
}

/** Applies the tenant's Secret `secretName` holding `kubeconfig`, owned by the KubernetesCluster. */
async function writeKubeconfigSecret(pass: Pass, kc: DeepReadonly<KubernetesCluster>, secretName: string, kubeconfig: string, annotations: Record<string, string>): Promise<void> {
  const { namespace, name } = pass.request;
  const data = Buffer.from(kubeconfig).toString("base64");
  holdSecrets(clusterSecrets(pass.request, "kubeconfig"), [kubeconfig, data]);
  const owner = kc as unknown as KubeObject;
  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: secretName,
      namespace,
      labels: ownerLabels({ cluster: pass.request.cluster, namespace, name, uid: kc.metadata?.uid ?? "" }),
      annotations,
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name, uid: kc.metadata?.uid, controller: true, blockOwnerDeletion: false }],
    },
    type: "Opaque",
    data: { [KUBECONFIG_KEY]: data },
  };
  await pass.scope.client.apply(kindPath(SECRETS, namespace, secretName), secret, FIELD_MANAGER, { signal: pass.signal });
}

function tenantSecret(context: ProvisionContext, pass: Pass, secretName: string): DeepReadonly<Secret> | undefined {
  return pass.scope.lister(context.resources.secrets).get(pass.request.namespace, secretName);
}

function held(secretName: string): StepCondition {
  return { status: "True", reason: "Issued", message: `Secret "${secretName}" holds the kubeconfig` };
}

function unavailable(message: string): HandedBack {
  return { condition: { status: "False", reason: "KubeconfigUnavailable", message } };
}

/** Deletes the tenant's kubeconfig Secret; absent is fine. */
export async function deleteKubeconfig(pass: Pass, secretName: string): Promise<void> {
  try {
    await pass.scope.client.delete(kindPath(SECRETS, pass.request.namespace, secretName), { signal: pass.signal });
  } catch (err) {
    if (!(err instanceof HttpStatusError && err.status === 404)) throw err;
  }
}
