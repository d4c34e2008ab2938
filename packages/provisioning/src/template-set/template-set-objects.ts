/**
 * The Cluster API objects of a ClusterAPI KubernetesCluster: its template
 * set's template rendered by the Cluster API rendering library, with the
 * tenant's node count as the replicas of every worker group of a
 * ClusterClass template, and every object marked with its owner as the
 * Crossplane objects are (`ownerLabels`, `ownerAnnotations`), so that the
 * same isolation checks and watches apply. The Cluster also records the
 * version it was made with, which the cluster keeps (`templateSetVersion`).
 *
 * An objects template keeps the replica counts it names: its node groups
 * are provider kinds whose replica fields are not known here.
 */
import { renderClusterApiObjects, type ClusterApiCluster, type ClusterTemplate, type RenderedResource } from "../cluster-api/cluster-template.js";
import { ownerAnnotations, ownerLabels, type Owner } from "../tenancy/tenant-namespace.js";

/** On the Cluster API Cluster: the Kubernetes version it was made with, with the leading `v`. */
export const KUBERNETES_VERSION_ANNOTATION = "platform.edgeconnect.eu/kubernetes-version";

export interface TemplateSetObjectsInput {
  /** The Cluster API Cluster's name and namespace (the tenant namespace). */
  readonly name: string;
  readonly namespace: string;
  readonly owner: Owner;
  /** The template set's `spec.template`, as the platform team wrote it. */
  readonly template: ClusterTemplate;
  /** From `templateSetVersion`. */
  readonly kubernetesVersion: string;
  /** `spec.nodeCount`. */
  readonly nodeCount: number;
}

export interface TemplateSetObjects {
  readonly cluster: ClusterApiCluster & { metadata: { annotations: Record<string, string> } };
  /** In the template's order; annotations the template gives are kept. */
  readonly resources: (RenderedResource & { metadata: { annotations: Record<string, string> } })[];
}

/** Throws a ClusterTemplateError listing every problem of the template. */
export function renderTemplateSet(input: TemplateSetObjectsInput): TemplateSetObjects {
  const objects = renderClusterApiObjects({
    name: input.name,
    namespace: input.namespace,
    kubernetesVersion: input.kubernetesVersion,
    labels: ownerLabels(input.owner),
    template: input.template,
    workerReplicas: input.nodeCount,
  });
  const annotations = ownerAnnotations(input.owner);
  return {
    cluster: { ...objects.cluster, metadata: { ...objects.cluster.metadata, annotations: { ...annotations, [KUBERNETES_VERSION_ANNOTATION]: input.kubernetesVersion } } },
    resources: objects.resources.map((resource) => ({ ...resource, metadata: { ...resource.metadata, annotations: { ...asRecord(resource.metadata["annotations"]), ...annotations } } })),
  };
}

/** Annotations as the template gives them: the API server refuses values that are no strings, telling the platform team. */
function asRecord(value: unknown): Record<string, string> {
  return isRecord(value) ? (value as Record<string, string>) : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
