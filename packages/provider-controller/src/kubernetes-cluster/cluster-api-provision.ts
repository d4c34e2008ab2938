/**
 * One provisioning pass of a ClusterAPI KubernetesCluster: the template set
 * it names (a ProviderConfig of the Cluster API cluster provider on the
 * infrastructure cluster) rendered into the tenant namespace, Cluster API's
 * view of the Cluster read back, and its admin kubeconfig handed to the
 * tenant.
 *
 * As for OTC, the inputs are checked before anything is created: a platform
 * without Cluster API, a template set that does not exist, a version it
 * does not offer, a template the infrastructure does not serve the kinds of
 * stop the pass with a condition, and nothing is written to the
 * infrastructure cluster. Template objects go only into the tenant
 * namespace: a template naming a cluster-scoped kind is refused.
 */
import type { KubernetesCluster } from "@edgeconnect/api";
import { HttpStatusError, type KubeObject } from "@edgeconnect/kcp-ts";
import {
  CLUSTER_API_CLUSTER,
  clusterApiKubeconfigSecret,
  clusterApiReadiness,
  clusterObjectNames,
  ClusterTemplateError,
  CONDITION,
  KUBERNETES_VERSION_ANNOTATION,
  REASON,
  renderTemplateSet,
  templateSetVersion,
  tenantNamespace,
  type ClusterApiReadiness,
  type ClusterObjectNames,
  type ClusterTemplate,
  type ObservedClusterApiCluster,
  type TemplateSetObjects,
} from "@edgeconnect/provisioning";
import type { DeepReadonly, Request } from "@edgeconnect/runtime";
import type { InfrastructureWrites, ServedKind } from "../infrastructure/infrastructure-cluster.js";
import { ownedBy } from "../infrastructure/owner.js";
import type { TemplateSets } from "../infrastructure/template-sets.js";
import { handBackClusterApiKubeconfig } from "./kubeconfig-secret.js";
import { RESYNC_PROVISIONING_MS, RESYNC_READY_MS, type Pass, type ProvisionContext, type StepCondition } from "./provision.js";
import type { StatusReport } from "./status-report.js";
import { claimNamespaceOrRefuse } from "./tenant-namespace.js";

export interface ClusterApiContext {
  readonly templateSets: TemplateSets;
}

export type ClusterApiCluster = ObservedClusterApiCluster & KubeObject;

/** What a cluster's template set resolves to: the objects, or why there are none. */
export type ClusterApiPlan =
  | { readonly ok: true; readonly objects: TemplateSetObjects; readonly version: string }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** At most this many template sets are named to a tenant whose set does not exist. */
const MAX_NAMED_SETS = 10;

export async function provisionClusterApi(context: ProvisionContext, pass: Pass, kc: DeepReadonly<KubernetesCluster>, report: StatusReport): Promise<{ requeueAfterMs: number }> {
  const { request } = pass;
  // The reconciler sends only clusters whose spec says ClusterAPI here, and the CRD requires spec.
  const spec = kc.spec as NonNullable<KubernetesCluster["spec"]>;
  if (context.clusterApi === undefined) {
    report.fail(CONDITION.TemplateSetValid, REASON.ClusterAPINotOffered, "this platform does not offer Cluster API clusters; order providerRef.type OTC, or ask the platform team to enable Cluster API");
    return { requeueAfterMs: RESYNC_READY_MS };
  }
  const namespace = tenantNamespace(request.cluster);
  const names = clusterObjectNames(request.namespace, request.name, request.cluster);
  const setName = spec.providerRef.templateSet ?? "";
  // The cache holds only objects with our marks; one of the name without them is only seen by asking.
  const existing =
    context.infra.list<ClusterApiCluster>(CLUSTER_API_CLUSTER, namespace.name).find((obj) => obj.metadata?.name === names.clusterApiCluster) ??
    (await pass.writes.get<ClusterApiCluster>(CLUSTER_API_CLUSTER, namespace.name, names.clusterApiCluster));
  if (existing !== undefined && !ownedBy(existing, request)) {
    report.refuse("NameConflict", "the infrastructure already holds a cluster of this cluster's infrastructure name that is not this cluster's; nothing was changed. Contact the platform team");
    return { requeueAfterMs: RESYNC_READY_MS };
  }
  const plan = planClusterApi(context.clusterApi, request, kc, names, existing?.metadata?.annotations?.[KUBERNETES_VERSION_ANNOTATION]);
  if (!plan.ok) {
    if (plan.reason === REASON.UnsupportedChange) report.refuse(plan.reason, plan.message);
    else report.fail(CONDITION.TemplateSetValid, plan.reason, plan.message);
    return { requeueAfterMs: plan.reason === REASON.TemplateSetNotFound ? RESYNC_PROVISIONING_MS : RESYNC_READY_MS };
  }
  const kinds = await templateKinds(pass.writes, plan.objects);
  if (!kinds.ok) {
    report.fail(CONDITION.TemplateSetValid, REASON.InvalidTemplate, `template set "${setName}" cannot be used: ${kinds.message}; ask the platform team to fix it`);
    return { requeueAfterMs: RESYNC_READY_MS };
  }
  report.pass(CONDITION.TemplateSetValid, "Resolved", `template set "${setName}" with Kubernetes ${plan.version}`);

  if (!(await claimNamespaceOrRefuse(pass.writes, namespace, request.cluster, report))) return { requeueAfterMs: RESYNC_READY_MS };

  let applied: ClusterApiCluster;
  try {
    for (const { kind, resource } of kinds.resources) await pass.writes.apply(kind, resource);
    applied = await pass.writes.apply<TemplateSetObjects["cluster"], ClusterApiCluster>(CLUSTER_API_CLUSTER, plan.objects.cluster);
  } catch (err) {
    if (!(err instanceof HttpStatusError && (err.status === 400 || err.status === 422))) throw err;
    // Admission's verdict on the platform team's template; the tenant can only pass it on.
    report.fail(CONDITION.TemplateSetValid, REASON.InvalidTemplate, `the infrastructure refused template set "${setName}": ${err.statusObject?.message ?? err.message}; ask the platform team to fix it`);
    return { requeueAfterMs: RESYNC_READY_MS };
  }

  const readiness = clusterApiReadiness(applied);
  report.step(CONDITION.ClusterAvailable, availability(readiness));
  const kubeconfig = await handBackClusterApiKubeconfig(context, pass, kc, names.kubeconfigSecret, { namespace: namespace.name, ...clusterApiKubeconfigSecret(names.clusterApiCluster) });
  report.step(CONDITION.KubeconfigReady, kubeconfig.condition);
  if (kubeconfig.server !== undefined) report.endpoint(readiness.apiServerEndpoint ?? kubeconfig.server, names.kubeconfigSecret);
  return { requeueAfterMs: report.ready ? RESYNC_READY_MS : RESYNC_PROVISIONING_MS };
}

/**
 * The objects of `kc` from its template set, in the version the cluster
 * runs (`current`) or the one the spec picks. Pure but for the template
 * sets' cache; teardown uses it to find the template's objects.
 */
export function planClusterApi(context: ClusterApiContext, request: Request, kc: DeepReadonly<KubernetesCluster>, names: ClusterObjectNames, current?: string): ClusterApiPlan {
  const spec = kc.spec as NonNullable<KubernetesCluster["spec"]>;
  // The CRD requires templateSet for ClusterAPI.
  const setName = spec.providerRef.templateSet ?? "";
  const set = context.templateSets.get(setName);
  if (set === undefined) {
    const offered = context.templateSets.names();
    const shown = offered.slice(0, MAX_NAMED_SETS).map((name) => `"${name}"`);
    return {
      ok: false,
      reason: REASON.TemplateSetNotFound,
      message:
        offered.length === 0
          ? `template set "${setName}" does not exist, and this platform offers none yet; ask the platform team`
          : `template set "${setName}" does not exist; set providerRef.templateSet to one of ${shown.join(", ")}${offered.length > shown.length ? ", …" : ""}`,
    };
  }
  // Inside the try: an offered version that is no full version is the template set's fault too, thrown as a ClusterTemplateError.
  try {
    const version = templateSetVersion({
      requested: spec.kubernetes.version,
      offeredBy: `template set "${setName}"`,
      offered: set.spec.kubernetesVersions.map((entry) => ({ version: entry.version, ...(entry.deprecated === undefined ? {} : { deprecated: entry.deprecated }) })),
      ...(current === undefined ? {} : { current }),
    });
    if (!version.ok) return version;
    const objects = renderTemplateSet({
      name: names.clusterApiCluster,
      namespace: tenantNamespace(request.cluster).name,
      owner: { ...request, uid: kc.metadata?.uid ?? "" },
      template: set.spec.template as ClusterTemplate,
      kubernetesVersion: version.version,
      nodeCount: spec.nodeCount,
    });
    return { ok: true, objects, version: version.version };
  } catch (err) {
    if (!(err instanceof ClusterTemplateError)) throw err;
    return { ok: false, reason: REASON.InvalidTemplate, message: `template set "${setName}" cannot be used: ${err.message}; ask the platform team to fix it` };
  }
}

type TemplateResource = TemplateSetObjects["resources"][number];

/** Each template resource with its served kind, in order; refused when a kind is not served or not namespaced. */
export async function templateKinds(
  writes: InfrastructureWrites,
  objects: TemplateSetObjects,
): Promise<{ ok: true; resources: { kind: ServedKind; resource: TemplateResource }[] } | { ok: false; message: string }> {
  const resources: { kind: ServedKind; resource: TemplateResource }[] = [];
  for (const resource of objects.resources) {
    const kind = await writes.served(resource.apiVersion, resource.kind);
    if (kind === undefined) return { ok: false, message: `the infrastructure serves no ${resource.kind} of ${resource.apiVersion}` };
    if (!kind.namespaced) return { ok: false, message: `${resource.kind} ${resource.metadata.name} is cluster-scoped, and clusters may only make objects in their own namespace` };
    resources.push({ kind, resource });
  }
  return { ok: true, resources };
}

function availability(readiness: ClusterApiReadiness): StepCondition {
  switch (readiness.state) {
    case "Ready":
      return { status: "True", reason: "Available", message: "the cluster is available" };
    case "Failed":
      return { status: "False", reason: readiness.reason, message: `the cluster failed: ${readiness.message}` };
    default:
      return { status: "Unknown", reason: readiness.reason, message: readiness.message };
  }
}
